import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices, type Services } from "../../src/services.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { endJobFromRunner } from "../../src/jobs/lifecycle/end-job.ts";
import { ensurePayload } from "../../src/webhooks/job-end-event.ts";
import type { DeliveryRow } from "../../src/webhooks/delivery-store.ts";
import type { JobSpec } from "../../src/jobs/request/job-request.ts";
import type { RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { JOB_COLUMN_MAX_BYTES, JOB_FIXED_COLUMNS, STORED_VIEW_MAX_BYTES } from "../../src/jobs/store/row-budget.ts";
import {
  MAX_METADATA_ENTRIES,
  MAX_METADATA_KEY_CHARS,
  MAX_METADATA_VALUE_CHARS,
  MAX_OUTPUTS,
  MAX_URL_LENGTH_CHARS,
} from "../../src/jobs/request/limits.ts";
import { D1_MAX_ROW_BYTES } from "../../src/platform/d1-row-size.ts";
import { recordResponse } from "../../src/storage/idempotency-store.ts";
import { api, createAccount } from "./helpers.ts";
import { insertJob } from "../../src/jobs/transitions/insert-job.ts";

/**
 * The largest job the service takes, ended with the largest report a runner can make, written through
 * the real code: every row it leaves stays within D1's 2,000,000 bytes (the tests' database refuses
 * larger ones, as D1 does: a refused end would leave the job running for ever). Before the rows had
 * budgets (src/jobs/store/row-budget.ts) this job's row came to 4,307,755 bytes (stdout cut to 262,144
 * characters of up to 3 bytes: 786,432; the runner's error message, planned arguments and delivery
 * report as it sent them: 1,713,208 for the delivery).
 */
const bytes = (text: string | null) => (text === null ? 0 : new TextEncoder().encode(text).length);

/** A request at its share of the row: the body's 1 MiB of arguments (3-byte characters), the largest metadata and webhook URL. */
function largestSpec(): JobSpec {
  const metadata = Object.fromEntries(
    Array.from({ length: MAX_METADATA_ENTRIES }, (_, i) => [
      `k${i}`.padEnd(MAX_METADATA_KEY_CHARS, "é"),
      "€".repeat(MAX_METADATA_VALUE_CHARS),
    ]),
  );
  const spec: JobSpec = {
    binary: "ffmpeg",
    args: ["-i", "{{in}}"],
    inputs: { in: { type: "url", url: "https://media.example.com/in.mp4" } },
    outputs: {
      ...Object.fromEntries(
        Array.from({ length: MAX_OUTPUTS - 1 }, (_, i) => [
          `hls${i}`,
          { fileName: "index.m3u8", contentType: "application/vnd.apple.mpegurl", kind: "directory" as const },
        ]),
      ),
      sent: {
        fileName: "index.m3u8",
        contentType: "application/vnd.apple.mpegurl",
        kind: "directory",
        destination: { url: "https://storage.example.com/bucket/prefix/" },
      },
    },
    webhookUrl: `https://hooks.example.com/${"p".repeat(MAX_URL_LENGTH_CHARS - 26)}`,
    metadata,
    apiOrigin: "https://ffjobs.test",
  };
  while (bytes(JSON.stringify(spec)) < JOB_COLUMN_MAX_BYTES.request_json - 20_000)
    spec.args.push("-metadata", `comment=${"€".repeat(4000)}`);
  spec.args.push("{{hls0}}");
  return spec;
}

/** The most a runner can report: stdout that did not decode (U+FFFD, 3 bytes each), long texts, 5,000 files per directory. */
function largestOutcome(spec: JobSpec): RunnerOutcome {
  const streams = Array.from({ length: 500 }, (_, i) => ({
    index: i,
    type: "video",
    codec: "h264",
    width: 1920,
    height: 1080,
    frameRate: 30,
  }));
  const metadata = { format: "hls", durationSeconds: 60, size: 1, bitRate: null, streams };
  const files = Array.from({ length: 5000 }, (_, i) => ({
    path: `segment_${String(i).padStart(5, "0")}.ts`,
    size: 1_000_000,
  }));
  return {
    status: "completed",
    exitCode: 0,
    runtimeMs: 60_000,
    errorCode: null,
    errorMessage: "m".repeat(300_000),
    stdout: `${"\uFFFD".repeat(262_144)}\n[output truncated]`,
    stderrTail: `[earlier output dropped]\n${"€".repeat(16_384)}`,
    outputs: Object.keys(spec.outputs).map((name) => ({
      name,
      size: 5_000_000_000,
      metadata,
      files,
      mainFile: "index.m3u8",
      ...(name === "sent"
        ? {
            delivered: {
              etag: `"${"e".repeat(5000)}"`,
              sha256: "a".repeat(64),
              files: files.map((f) => ({ ...f, sha256: "b".repeat(64), etag: `"${"f".repeat(200)}"` })),
            },
          }
        : {}),
    })),
    plannedArgs: ["€".repeat(100_000)],
    inputReads: { in: { bytesRead: 1, originBytes: 1, copied: false } },
    timings: { fetchMs: 1, runMs: 60_000, storeMs: 1 },
    finishedAt: new Date().toISOString(),
  };
}

describe("a job at every limit", () => {
  it("ends, and every row it leaves (the job, its outputs, its webhook event) fits in a D1 row", {
    timeout: 60_000,
  }, async () => {
    const { accountId } = await createAccount();
    const id = crypto.randomUUID();
    const spec = largestSpec();
    await insertJob(env.DB, { id, accountId, spec, now: new Date().toISOString() });
    await env.DB.prepare("UPDATE jobs SET status = 'running', attempts = 1, started_at = ?2 WHERE id = ?1")
      .bind(id, new Date().toISOString())
      .run();
    // No webhook leaves the machine: the event is built and stored, never sent.
    const s: Services = {
      ...createServices(env),
      webhooksQueue: { send: async () => {}, sendBatch: async () => {} } as unknown as Services["webhooksQueue"],
    };

    expect(await endJobFromRunner(s, (await getJob(env.DB, id))!, largestOutcome(spec))).toBe(true);

    const columns = (
      await env.DB.prepare("SELECT name FROM pragma_table_info('jobs')").all<{ name: string }>()
    ).results.map((c) => c.name);
    // Every column of a job's row has a share (or holds only ids, states, numbers and times).
    for (const c of columns) expect([...Object.keys(JOB_COLUMN_MAX_BYTES), ...JOB_FIXED_COLUMNS], c).toContain(c);
    const sizes = await env.DB.prepare(
      `SELECT ${columns.map((c) => `ifnull(length(CAST("${c}" AS BLOB)), 0) AS "${c}"`).join(", ")} FROM jobs WHERE id = ?1`,
    )
      .bind(id)
      .first<Record<string, number>>();
    const total = Object.values(sizes!).reduce((a, b) => a + b, 0);
    console.log(
      `the largest job's row: ${total} bytes; request ${sizes!.request_json}, stdout ${sizes!.stdout}, delivered ${sizes!.delivered_json}`,
    );
    expect(total).toBeLessThan(D1_MAX_ROW_BYTES);
    for (const [column, share] of Object.entries(JOB_COLUMN_MAX_BYTES))
      expect(sizes![column], column).toBeLessThanOrEqual(share);

    const job = (await getJob(env.DB, id))!;
    expect(job.status).toBe("completed");
    expect(bytes(job.stdout)).toBeGreaterThan(262_000);
    expect(job.planned_args_json).toBeNull();
    const delivered = JSON.parse(job.delivered_json!) as { label: string; files?: unknown[]; etag: string }[];
    expect(delivered.map((d) => [d.label, d.files?.length ?? null, d.etag.length])).toEqual([["sent", null, 1024]]);

    const outputs = await env.DB.prepare("SELECT label, metadata_json, files_json FROM job_outputs WHERE job_id = ?1")
      .bind(id)
      .all<{ label: string; metadata_json: string | null; files_json: string }>();
    expect(outputs.results).toHaveLength(MAX_OUTPUTS - 1);
    for (const o of outputs.results) {
      expect(JSON.parse(o.files_json)).toHaveLength(5000);
      // 500 streams are more summary than an output keeps.
      expect(o.metadata_json).toBeNull();
    }

    const delivery = (await env.DB.prepare("SELECT * FROM webhook_deliveries WHERE job_id = ?1")
      .bind(id)
      .first<DeliveryRow>())!;
    const payload = await ensurePayload(s, delivery);
    console.log(`its webhook event: ${bytes(payload)} bytes`);
    expect(bytes(payload)).toBeLessThanOrEqual(STORED_VIEW_MAX_BYTES);
    const data = JSON.parse(payload).data;
    // 15 × 5,000 download URLs do not fit beside the request: the event leaves the lists out (GET the job has them).
    expect(data.outputs).toHaveLength(MAX_OUTPUTS - 1);
    expect(
      data.outputs.every((o: { files?: unknown; downloadUrl: string }) => o.files === undefined && o.downloadUrl),
    ).toBe(true);
    expect(data.ffmpegArgs).toEqual(spec.args);
  });
});

describe("an idempotent request's answer", () => {
  it("too large to keep in its row is replayed as a redirect to what the request created", async () => {
    const { accountId, key } = await createAccount();
    const body = { fileName: "clip.mp4", contentType: "video/mp4" };
    const first = await api(key, "POST", "/v1/files", body, { "Idempotency-Key": "too-large-to-keep" });
    expect(first.status).toBe(201);
    // As if the answer had been a finished job's full form with thousands of directory files (Prefer: wait).
    const claim = { account: accountId, operation: "files.create", key: "too-large-to-keep" };
    await env.DB.prepare(
      "UPDATE idempotency_keys SET status = NULL, response_json = NULL WHERE account_id = ?1 AND idem_key = ?2",
    )
      .bind(accountId, claim.key)
      .run();
    await recordResponse(env.DB, claim, {
      status: 201,
      body: JSON.stringify({ padding: "x".repeat(2_500_000) }),
      location: `/v1/files/${first.body.id}`,
    });
    const replay = await exports.default.fetch(
      new Request("https://ffjobs.test/v1/files", {
        method: "POST",
        body: JSON.stringify(body),
        redirect: "manual",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "Idempotency-Key": "too-large-to-keep",
        },
      }),
    );
    expect([replay.status, replay.headers.get("location"), replay.headers.get("idempotent-replayed")]).toEqual([
      303,
      `/v1/files/${first.body.id}`,
      "true",
    ]);
  });
});
