import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  FfjobsError,
  verifyWebhook,
  WebhookVerificationError,
  type FfjobsClient,
} from "../../client/src/index.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";

const { fx, local } = useLocalStack();
let client: FfjobsClient;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
  receiver = await startWebhookReceiver();
});
afterAll(async () => receiver?.close());

/** The webhooks the receiver got in a mailbox, once there are `n`. */
async function received(box: string, n: number) {
  for (let i = 0; i < 200; i++) {
    const got = (await (await fetch(`${receiver.url}/_received/${box}`)).json()) as {
      headers: Record<string, string>;
      body: string;
    }[];
    if (got.length >= n) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no webhook arrived");
}

describe("the typed client against the local stack", () => {
  it("uploads a local file with progress, runs a job on it, waits without busy polling, reads the result and the events", async () => {
    const progress: number[] = [];
    const asset = await client.uploadFile(fx.clip, { onProgress: (sent) => progress.push(sent) });
    expect(asset).toMatchObject({ fileName: "clip.mp4", contentType: "video/mp4", status: "ready" });
    expect(progress.at(-1)).toBe(asset.size);
    const tag = crypto.randomUUID();
    const accepted = await client.createJob(
      {
        inputs: { video: { type: "asset", assetId: asset.id } },
        outputs: { thumb: { fileName: "thumb.png" } },
        ffmpegArgs: ["-i", "{{video}}", "-frames:v", "1", "{{thumb}}"],
        metadata: { tag },
      },
      { idempotencyKey: tag },
    );
    const job = await client.waitForJob(accepted.id, { timeoutMs: 60_000 });
    expect(job).toMatchObject({ status: "completed", metadata: { tag } });
    expect((await fetch(job.outputs[0].downloadUrl)).status).toBe(200);
    expect((await client.getResult(job.id)).exitCode).toBe(0);
    const events = [];
    for await (const e of client.events(job.id)) events.push(e);
    expect(events.at(-1)).toMatchObject({ event: "status", job: { status: "completed" } });
    expect((await client.listJobs({ metadata: { tag } })).data.map((j) => j.id)).toEqual([job.id]);
    await client.deleteJob(job.id);
    await expect(client.getJob(job.id)).rejects.toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("throws FfjobsError with the service's code and details; dry-runs a job", async () => {
    const err = await client.createJob({ ffmpegArgs: ["ffmpeg", "-version"] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FfjobsError);
    expect(err).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
      details: [expect.objectContaining({ path: ["ffmpegArgs", "0"] })],
    });
    const dry = await client.validateJob({
      binary: "ffprobe",
      inputs: { a: { type: "url", url: `${local.media.url}/clip.mp4` } },
      ffmpegArgs: ["{{a}}"],
    });
    expect(dry).toMatchObject({ valid: true, commands: [expect.objectContaining({ binary: "ffprobe" })] });
  });

  it("verifies real webhooks, with either secret during a rotation, and refuses a tampered one", async () => {
    const box = crypto.randomUUID();
    const run = async () =>
      client.waitForJob(
        (
          await client.createJob({
            binary: "ffprobe",
            inputs: { a: { type: "url", url: `${local.media.url}/clip.mp4` } },
            ffmpegArgs: ["{{a}}"],
            webhookUrl: `${receiver.url}/ok/${box}`,
          })
        ).id,
      );
    const before = await client.getWebhookSecret();
    await run();
    const [first] = await received(box, 1);
    expect(await verifyWebhook<{ type: string }>(first.headers, first.body, before.secret)).toMatchObject({
      type: "job.completed",
    });
    const after = await client.rotateWebhookSecret();
    await run();
    const [, second] = await received(box, 2);
    expect(second.headers["webhook-signature"].split(" ")).toHaveLength(2);
    for (const secret of [before.secret, after.secret])
      expect(await verifyWebhook(second.headers, second.body, secret)).toMatchObject({ type: "job.completed" });
    await expect(
      verifyWebhook(second.headers, second.body.replace("completed", "failed"), after.secret),
    ).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(
      verifyWebhook(second.headers, second.body, after.secret, Math.floor(Date.now() / 1000) + 3600),
    ).rejects.toThrow(/tolerance/);
  });
});
