// An output sent to a destination, with nothing outside the deploy: the service's own storage stands
// for the client's. An upload slot in parts gives a presigned UploadPart URL (a plain signed PUT, as a
// client's S3 URL is; a single-PUT slot's URL is signed with If-None-Match, which a destination cannot
// send); the job's runner PUTs its output there through the Worker's egress, which resolves the
// storage host and checks it as any client URL; the smoke test then completes the upload.
import { createHash } from "node:crypto";
import { FfjobsError, type Asset, type FfjobsClient, type Job } from "../../client/src/index.ts";
import { expected, notExpected, type Finding } from "./finding.ts";
import type { ApiCall } from "./api-call.ts";
import type { RunJob } from "./smoke-job.ts";

const CHECK = "output sent to a destination";
const PART_SIZE_BYTES = 5 * 1024 * 1024;

/** `samples`: the WAV's 16-bit samples, which the job writes back as raw PCM (s16le), byte for byte. */
export async function checkDestination(
  d: { client: FfjobsClient; api: ApiCall; runJob: RunJob },
  source: Pick<Asset, "id">,
  samples: Uint8Array,
): Promise<Finding> {
  const slot = await d.client.createFile({
    fileName: "ffjobs-smoke-destination.sw",
    contentType: "application/octet-stream",
    size: samples.length,
    multipart: true,
    partSizeBytes: PART_SIZE_BYTES,
  });
  try {
    const { parts } = await d.api<{ parts: { url: string }[] }>("POST", `/v1/files/${slot.id}/parts`, {
      partNumbers: [1],
    });
    const destination = parts[0].url;
    let job: Job;
    try {
      job = await d.runJob("destination job", {
        inputs: { src: { type: "asset", assetId: source.id } },
        outputs: { pcm: { fileName: "ffjobs-smoke-destination.sw", destination: { url: destination } } },
        ffmpegArgs: ["-i", "{{src}}", "-f", "s16le", "-c:a", "pcm_s16le", "{{pcm}}"],
      });
    } catch (err) {
      if (err instanceof FfjobsError && err.status === 400) {
        return notExpected(
          CHECK,
          `the service refused its own storage as a destination: ${err.message}`,
          "on a local stack, allow its storage host (ALLOWED_PRIVATE_HOSTS=127.0.0.1); in production, R2_S3_ENDPOINT must be https://<account>.r2.cloudflarestorage.com",
        );
      }
      throw err;
    }
    const host = new URL(destination).host;
    if (job.status !== "completed") {
      return notExpected(
        CHECK,
        `job ${job.id} ${job.status}: ${job.errorCode} ${job.errorMessage ?? ""}`.trim(),
        `the runner could not send to ${host}: outputs with a destination would fail; the Worker resolves and checks that host over DNS-over-HTTPS (EGRESS_RESOLVER_URL): see its logs (npx wrangler tail)`,
      );
    }
    const sent = job.deliveredOutputs[0];
    const sha256 = createHash("sha256").update(samples).digest("hex");
    if (!sent || sent.size !== samples.length || sent.sha256 !== sha256 || !sent.etag) {
      return notExpected(
        CHECK,
        `job ${job.id} recorded ${JSON.stringify(sent ?? null)}, expected ${samples.length} bytes with SHA-256 ${sha256} and an ETag`,
        "see the job (GET /v1/jobs/<id>): the runner's report of the send is wrong",
      );
    }
    const done = await d.api<Asset>("POST", `/v1/files/${slot.id}/complete`, {
      parts: [{ partNumber: 1, etag: sent.etag }],
    });
    if (done.status !== "ready" || done.size !== samples.length) {
      return notExpected(
        CHECK,
        `the destination's upload completed as ${done.status} with ${done.size} bytes, expected ${samples.length}`,
        "storage kept something else than the runner sent: see the Worker's logs (npx wrangler tail)",
      );
    }
    return expected(
      CHECK,
      `job ${job.id}'s runner sent ${sent.size} bytes to ${host} (SHA-256 and ETag recorded), and storage kept them`,
    );
  } finally {
    await d.client.deleteFile(slot.id).catch(() => {});
  }
}
