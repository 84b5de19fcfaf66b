import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { createJobSchema } from "../../src/api/schemas/job-request.ts";
import { jobListSchema } from "../../src/api/schemas/jobs.ts";
import { prepareJob } from "../../src/api/prepare-job.ts";
import { loadConfig } from "../../src/config.ts";
import * as L from "../../src/jobs/request/limits.ts";
import { insertDelivery } from "../../src/webhooks/delivery-store.ts";
import { meteredD1 } from "./d1-bytes-read.ts";
import { api, createAccount } from "./helpers.ts";
import { insertJob } from "../../src/jobs/transitions/insert-job.ts";

/**
 * A list page reads at most 101 rows at once. Whole job rows are ~1.4 MB at the limits (a
 * 1 MiB request, 256 KiB of stdout, 16 KiB of stderr), ~140 MB a page against the Worker's 128 MB
 * isolate, which miniflare does not enforce: so the bytes D1 hands the Worker are counted here.
 */
const PAGE = 100;
const ROWS = PAGE + 1; // the page's query reads one more row than it shows (is there a next page?)
const KiB = 1024;
const utf8 = (s: string) => new TextEncoder().encode(s).byteLength;

/** The largest job body the limits allow: 16 inputs and outputs, 32 metadata entries, steps filled to just under 1 MiB. */
function largestJobBody() {
  const inputs = Object.fromEntries(
    Array.from({ length: L.MAX_INPUTS }, (_, i) => {
      const url = `https://media.example.com/${i}/`;
      return [`in${i}`, { type: "url", url: `${url}${"p".repeat(L.MAX_URL_LENGTH_CHARS - url.length - 4)}.mp4` }];
    }),
  );
  const outputs = Object.fromEntries(
    Array.from({ length: L.MAX_OUTPUTS }, (_, i) => [`out${i}`, { fileName: `${"f".repeat(200)}-${i}.mp4` }]),
  );
  // Control characters: JSON writes each as \u00XX, six bytes, the most a metadata value can take.
  const metadata = Object.fromEntries(
    Array.from({ length: L.MAX_METADATA_ENTRIES }, (_, i) => [
      `${i}`.padStart(L.MAX_METADATA_KEY_CHARS, "k"),
      "\u0001".repeat(L.MAX_METADATA_VALUE_CHARS),
    ]),
  );
  const reads = Object.keys(inputs).flatMap((name) => ["-i", `{{${name}}}`]);
  const steps: { ffmpegArgs: string[] }[] = [
    { ffmpegArgs: [...reads, ...Object.keys(outputs).map((name) => `{{${name}}}`)] },
  ];
  const body = { inputs, outputs, metadata, steps };
  const filler = ["-metadata", `comment=${"x".repeat(L.MAX_ARG_LENGTH_CHARS - "comment=".length)}`];
  const margin = 2 * KiB;
  for (let k = 1; k < L.MAX_STEPS && utf8(JSON.stringify(body)) + 4200 * 2 < L.MAX_REQUEST_BODY_BYTES - margin; k++) {
    const step = { ffmpegArgs: ["-i", "{{in0}}", "-f", "null", "-"] };
    steps.push(step);
    while (
      step.ffmpegArgs.length + 2 <= L.MAX_ARGS &&
      utf8(JSON.stringify(body)) + 4200 < L.MAX_REQUEST_BODY_BYTES - margin
    )
      step.ffmpegArgs.splice(2, 0, ...filler);
  }
  return body;
}

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

/** One request through the Worker's real fetch handler, with its D1 binding metered. */
async function listThroughMeteredD1(path: string) {
  const db = meteredD1(env.DB);
  const started = Date.now();
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`https://ffjobs.test${path}`, { headers: { authorization: `Bearer ${account.key}` } }),
    { ...env, DB: db },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: JSON.parse(text),
    d1Bytes: db.bytesRead(),
    responseBytes: utf8(text),
    ms: Date.now() - started,
  };
}

describe("GET /v1/jobs at the limits", () => {
  it("lists 100 jobs of the largest size as summaries: D1 hands the Worker, and the answer holds, ~100 KiB a job (its metadata at the limits), not ~1.4 MB", async () => {
    const body = largestJobBody();
    const bodyBytes = utf8(JSON.stringify(body));
    expect(bodyBytes).toBeLessThanOrEqual(L.MAX_REQUEST_BODY_BYTES);
    expect(bodyBytes).toBeGreaterThan(L.MAX_REQUEST_BODY_BYTES - 8 * KiB);
    // The service would take it (the dry run answers as creation would, body size included).
    const dry = await api(account.key, "POST", "/v1/jobs/validate", body);
    expect(dry.body, JSON.stringify(dry.body).slice(0, 500)).toMatchObject({ valid: true });
    const { spec } = await prepareJob(
      env,
      loadConfig(env),
      account.accountId,
      createJobSchema.parse(body),
      "https://ffjobs.test",
    );

    // 101 finished jobs, stored as the service stores them, each with the most stdout, stderr and error text it keeps.
    const stdout = `${"o".repeat(L.MAX_STDOUT_BYTES)}\n[output truncated]`;
    const stderrTail = "e".repeat(L.MAX_STDERR_TAIL_BYTES);
    // An argument refusal quotes the argument: up to 4096 characters of the client's own.
    const errorMessage = `steps.1.ffmpegArgs 2: refused: ${"x".repeat(L.MAX_ARG_LENGTH_CHARS)}`;
    const inputReads = JSON.stringify(
      Object.fromEntries(
        Object.keys(spec.inputs).map((n) => [n, { bytesRead: 2 ** 36, originBytes: 2 ** 36, copied: false }]),
      ),
    );
    const timings = JSON.stringify({ queuedMs: 1, fetchMs: 2, runMs: 3_600_000, storeMs: 4, finishMs: 5 });
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    const ids: string[] = [];
    for (let first = 0; first < ROWS; first += 10) {
      const batch: D1PreparedStatement[] = [];
      for (let i = first; i < Math.min(ROWS, first + 10); i++) {
        const id = crypto.randomUUID();
        ids.push(id);
        const now = new Date(start + i).toISOString();
        await insertJob(env.DB, { id, accountId: account.accountId, spec, now });
        const failed = i % 2 === 1;
        batch.push(
          env.DB.prepare(
            `UPDATE jobs SET status = ?2, exit_code = ?3, runtime_seconds = 3600, credits_charged = 3600, attempts = 3, error_code = ?4, error_message = ?5,
             stdout = ?6, stderr_tail = ?7, started_at = ?8, finished_at = ?8, updated_at = ?8, timings_json = ?9, input_reads_json = ?10,
             failed_step = ?11, progress_json = ?12, charge_applied = 1, metrics_applied = 1 WHERE id = ?1`,
          ).bind(
            id,
            failed ? "failed" : "completed",
            failed ? 1 : 0,
            failed ? "ARGUMENTS_REFUSED" : null,
            failed ? errorMessage : null,
            stdout,
            stderrTail,
            now,
            timings,
            inputReads,
            failed ? 1 : null,
            JSON.stringify({ percent: 99.9, outTimeSeconds: 3599, speed: 1, frames: 90_000 }),
          ),
        );
      }
      await env.DB.batch(batch);
    }
    const rowBytes = (await env.DB.prepare(
      "SELECT max(length(CAST(request_json AS BLOB)) + length(stdout) + length(stderr_tail) + length(CAST(metadata_json AS BLOB))) AS n FROM jobs WHERE account_id = ?1",
    )
      .bind(account.accountId)
      .first<{ n: number }>())!.n;
    expect(rowBytes).toBeGreaterThan(1.3 * 1024 * KiB);

    const list = await listThroughMeteredD1(`/v1/jobs?limit=${PAGE}`);
    expect(list.status, list.text.slice(0, 300)).toBe(200);
    // What a summary may hold: the job's metadata (as JSON in D1's answer, and in ours) and a few KiB
    // of state, the 200-character command and the 1,000-character error message.
    const metadataJson = JSON.stringify(body.metadata);
    const perJobBytes = utf8(JSON.stringify(metadataJson)) + 4 * KiB;
    console.log(
      `GET /v1/jobs?limit=${PAGE} over rows of ${(rowBytes / 1024 / 1024).toFixed(2)} MiB: ${(list.d1Bytes / 1024 / 1024).toFixed(2)} MiB read from D1, ${(list.responseBytes / 1024 / 1024).toFixed(2)} MiB answered in ${list.ms} ms (bounds ${((ROWS * perJobBytes + 16 * KiB) / 1024 / 1024).toFixed(2)} / ${((PAGE * perJobBytes) / 1024 / 1024).toFixed(2)} MiB; whole rows: ${((ROWS * rowBytes) / 1024 / 1024).toFixed(0)} MiB)`,
    );
    expect(list.d1Bytes).toBeLessThanOrEqual(ROWS * perJobBytes + 16 * KiB);
    expect(list.responseBytes).toBeLessThanOrEqual(PAGE * perJobBytes);

    const page = jobListSchema.parse(list.body);
    expect(page.data.map((j) => j.id)).toEqual(ids.slice(1).reverse());
    expect(page.nextCursor).toEqual(expect.any(String));
    for (const job of page.data) {
      expect(job.metadata).toEqual(body.metadata);
      expect(job.command.startsWith("ffmpeg -i {{in0}} -i {{in1}} ")).toBe(true);
      expect([...job.command]).toHaveLength(L.COMMAND_PREVIEW_CHARS);
      expect(job.command.endsWith("…")).toBe(true);
      if (job.status === "failed") {
        expect([...job.errorMessage!]).toHaveLength(L.ERROR_PREVIEW_CHARS);
        expect(errorMessage.startsWith(job.errorMessage!.slice(0, -1))).toBe(true);
      } else expect(job.errorMessage).toBeNull();
      expect(job).toMatchObject({
        runtimeSeconds: 3600,
        creditsCharged: 3600,
        attempts: 3,
        progress: null,
        timings: { runMs: 3_600_000 },
      });
      expect(job).not.toHaveProperty("steps");
      expect(job).not.toHaveProperty("outputs");
    }
    // The job's own GET still has it whole.
    const whole = await api(account.key, "GET", `/v1/jobs/${ids[1]}`);
    expect(whole.body.steps.map((s: { ffmpegArgs: string[] }) => s.ffmpegArgs)).toEqual(
      body.steps.map((s) => s.ffmpegArgs),
    );
    expect(whole.body.errorMessage).toBe(errorMessage);
  }, 120_000);

  it("lists the webhook delivery log without the payloads (each a job's whole form)", async () => {
    const payload = JSON.stringify({ type: "job.completed", data: { padding: "d".repeat(L.MAX_REQUEST_BODY_BYTES) } });
    for (let first = 0; first < ROWS; first += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, ROWS - first) }, (_, k) =>
          insertDelivery(env.DB, {
            id: crypto.randomUUID(),
            accountId: account.accountId,
            jobId: crypto.randomUUID(),
            eventId: `evt_${first + k}`,
            eventType: "job.completed",
            url: `https://hooks.example.com/${"h".repeat(L.MAX_URL_LENGTH_CHARS - 40)}`,
            payload,
            now: new Date(Date.parse("2026-01-01T00:00:00.000Z") + first + k).toISOString(),
          }),
        ),
      );
    }
    const list = await listThroughMeteredD1(`/v1/webhooks/deliveries?limit=${PAGE}`);
    expect(list.status, list.text.slice(0, 300)).toBe(200);
    console.log(
      `GET /v1/webhooks/deliveries?limit=${PAGE} over payloads of ${(payload.length / 1024 / 1024).toFixed(2)} MiB: ${(list.d1Bytes / 1024).toFixed(0)} KiB read from D1, ${(list.responseBytes / 1024).toFixed(0)} KiB answered`,
    );
    expect(list.body.data).toHaveLength(PAGE);
    // A delivery's listed fields are a URL (≤ 2048 characters) and a few ids and times.
    expect(list.d1Bytes).toBeLessThanOrEqual(ROWS * 3 * KiB + 16 * KiB);
    expect(list.responseBytes).toBeLessThanOrEqual(PAGE * 3 * KiB);
  }, 120_000);
});
