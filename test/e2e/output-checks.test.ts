import { createHash } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";
import { verifyReceipt } from "../../client/src/index.ts";

/**
 * Output checks through the API (the local stack: real Worker code, real runner, host ffmpeg): a job
 * whose output misses a check fails unpublished, and says what was measured; a report-only job
 * publishes with its failures listed; every published file carries its SHA-256; the result's receipt
 * verifies with the stock Standard Webhooks library and names the bytes downloaded.
 */
const { fx, local } = useLocalStack();
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

const clip = () => ({ type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` });
const cutShort = ["-i", "{{clip}}", "-t", "1", "-c", "copy", "{{out}}"];
const lastingAsTheClip = { durationSeconds: { asInput: "clip", toleranceSeconds: 0.2 } };

async function webhooksOf(box: string, atLeast: number) {
  let received: { headers: Record<string, string>; body: string }[] = [];
  for (let i = 0; i < 100 && received.length < atLeast; i++) {
    await new Promise((r) => setTimeout(r, 100));
    received = await (await fetch(`${receiver.url}/_received/${box}`)).json();
  }
  return received;
}

describe("output checks through the API", () => {
  it("fails a job whose output misses a check: nothing published, the measures on the job, job.failed sent", async () => {
    const box = crypto.randomUUID();
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: { out: { fileName: "out.mp4", checks: lastingAsTheClip } },
      ffmpegArgs: cutShort,
      webhookUrl: `${receiver.url}/ok/${box}`,
    });
    expect(job).toMatchObject({ status: "failed", errorCode: "OUTPUT_CHECK_FAILED", outputs: [] });
    expect(job.errorMessage).toMatch(/"out" durationSeconds: lasts 1(\.\d+)? s; wanted 3 ± 0\.2 s \(input "clip"\)/);
    expect(job.checks.out).toEqual([
      expect.objectContaining({
        check: "durationSeconds",
        passed: false,
        wanted: { seconds: 3, toleranceSeconds: 0.2, asInput: "clip" },
      }),
    ]);
    expect(job.creditsCharged).toBeGreaterThan(0);
    const [event] = await webhooksOf(box, 1);
    expect(JSON.parse(event.body).type).toBe("job.failed");
    const result = (await local.api.call("GET", `/v1/jobs/${job.id}/result`)).body;
    expect(result.checks.out[0].passed).toBe(false);
  });

  it("report-only: the job completes, its output published with the failure listed and its SHA-256", async () => {
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: { out: { fileName: "out.mp4", checks: { ...lastingAsTheClip, streams: ["video"] } } },
      ffmpegArgs: cutShort,
      onFailedCheck: "report",
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    expect(job.onFailedCheck).toBe("report");
    const [out] = job.outputs;
    expect(out.checks.map((c: any) => [c.check, c.passed])).toEqual([
      ["streams", true],
      ["durationSeconds", false],
    ]);
    const bytes = Buffer.from(await (await fetch(out.downloadUrl)).arrayBuffer());
    expect(out.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
  });

  it("signs a receipt the stock library verifies, naming each file's SHA-256 and what was proven", async () => {
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: { out: { fileName: "out.mp4" } },
      ffmpegArgs: ["-i", "{{clip}}", "-c", "copy", "{{out}}"],
    });
    expect(job.status).toBe("completed");
    const secret = (await local.api.call("GET", "/v1/webhooks/secret")).body.secret;
    const { receipt, outputs } = (await local.api.call("GET", `/v1/jobs/${job.id}/result`)).body;
    const wh = new Webhook(secret);
    const proven = wh.verify(receipt.payload, receipt.headers) as any;
    expect(proven).toMatchObject({ type: "job.receipt", job: { id: job.id, status: "completed" } });
    const bytes = Buffer.from(await (await fetch(outputs[0].downloadUrl)).arrayBuffer());
    expect(proven.outputs).toEqual([
      expect.objectContaining({
        label: "out",
        size: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
        checks: [expect.objectContaining({ check: "readable", passed: true })],
      }),
    ]);
    // Archived: the same signature, recomputed over the id, the timestamp and the text, as docs/api.md shows;
    // timestamped at the job's end, the same receipt at every read.
    const when = new Date(Number(receipt.headers["webhook-timestamp"]) * 1000);
    expect(when.getTime()).toBe(Math.floor(Date.parse(job.finishedAt) / 1000) * 1000);
    const again = (await local.api.call("GET", `/v1/jobs/${job.id}/result`)).body.receipt;
    expect(again).toEqual(receipt);
    expect(receipt.headers["webhook-signature"].split(" ")).toContain(
      wh.sign(receipt.headers["webhook-id"], when, receipt.payload),
    );
    // The typed client verifies it the same way, at whatever age; a receipt whose text was changed does not verify.
    expect(await verifyReceipt(receipt, secret)).toEqual(proven);
    const forged = receipt.payload.replace(proven.outputs[0].sha256, "0".repeat(64));
    expect(() => wh.verify(forged, receipt.headers)).toThrow();
    await expect(verifyReceipt({ ...receipt, payload: forged }, secret)).rejects.toThrow(/no signature matches/);
  });

  it("refuses, at creation, a check that names no input of the job, and checks on a directory", async () => {
    const unknown = await local.api.call("POST", "/v1/jobs", {
      inputs: { clip: clip() },
      outputs: { out: { fileName: "out.mp4", checks: { quality: { against: "other", minSsim: 0.9 } } } },
      ffmpegArgs: cutShort,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toContainEqual(
      expect.objectContaining({
        path: ["outputs", "out", "checks", "quality"],
        message: 'the job has no input "other" to compare with',
      }),
    );
    const directory = await local.api.call("POST", "/v1/jobs", {
      inputs: { clip: clip() },
      outputs: { frames: { fileName: "f_%02d.png", kind: "directory", checks: { readable: true } } },
      ffmpegArgs: ["-i", "{{clip}}", "{{frames}}"],
    });
    expect(directory.status).toBe(400);
    expect(directory.body.details).toContainEqual(expect.objectContaining({ path: ["outputs", "frames", "checks"] }));
  });
});
