// The smoke test of a deployed (or local) ffjobs: the runner answers, an upload lands in storage, an
// ffmpeg job reads it and stores an output that downloads byte-exact, and an ffprobe job reads a URL
// input (by default that output's download URL: through the container's egress in production).
import { createClient, FfjobsError, type CreateJobRequest, type FfjobsClient, type Job } from "../../client/src/index.ts";
import { NotReadyYet, RUNNER_FAULT_CODES, untilReady, type Patience } from "./cold-start.ts";
import { makeWav, readWav, SMOKE_WAV } from "./wav.ts";

export type SmokeOptions = { url: string; apiKey: string; /** a public media URL for the probe job instead of the output's */ inputUrl?: string };
export type SmokeDeps = { fetch: typeof fetch; patience: Patience };

/** Longest a single smoke job may take once it has a runner: the input is one second of audio. */
const JOB_WAIT_MS = 5 * 60_000;
const JOB_TIMEOUT_SECONDS = 120;
const METADATA = { purpose: "smoke-test" };

export async function runSmoke(o: SmokeOptions, d: SmokeDeps): Promise<void> {
  const log = d.patience.log;
  const startedAt = d.patience.clock.now();
  const client = createClient({ baseUrl: o.url, apiKey: o.apiKey, fetch: d.fetch });

  log(`smoke test of ${o.url}`);
  const caps = await untilReady("runner", () => notReadyOnFault(() => client.getCapabilities()), startedAt, d.patience);
  const sandbox = caps.sandbox as { mode?: string; description?: string } | undefined;
  if (sandbox?.mode === "unavailable") throw new Error(`the runner has no sandbox (${sandbox.description}): every job would fail SANDBOX_UNAVAILABLE. See docs/security.md.`);
  log(`✓ the runner answers (sandbox: ${sandbox?.mode ?? "unknown"})`);

  const wav = makeWav();
  const asset = await client.uploadFile(new Blob([wav as Uint8Array<ArrayBuffer>]), { fileName: "ffjobs-smoke.wav", contentType: "audio/wav" }).catch((err: Error) => {
    throw new Error(`upload failed: ${err.message} (check the R2 secrets and R2_S3_ENDPOINT)`);
  });
  if (asset.status !== "ready" || asset.size !== wav.length) throw new Error(`the upload is ${asset.status} with ${asset.size} bytes, expected ready with ${wav.length}`);
  log(`✓ uploaded ${wav.length} bytes (file ${asset.id})`);

  const copy = await untilReady("ffmpeg job", () => runJob(client, {
    inputs: { src: { type: "asset", assetId: asset.id } },
    outputs: { copy: { fileName: "ffjobs-smoke-copy.wav" } },
    ffmpegArgs: ["-i", "{{src}}", "-c:a", "pcm_s16le", "{{copy}}"],
  }), startedAt, d.patience);
  const output = copy.outputs[0];
  if (!output?.downloadUrl) throw new Error(`job ${copy.id} completed without an output to download`);
  log(`✓ ffmpeg job ${copy.id} completed in ${copy.runtimeSeconds} s`);

  const res = await d.fetch(output.downloadUrl);
  if (!res.ok) throw new Error(`downloading the output failed: HTTP ${res.status}`);
  const got = readWav(new Uint8Array(await res.arrayBuffer()));
  const sent = readWav(wav);
  if (got.sampleRate !== sent.sampleRate || got.channels !== sent.channels || !sameBytes(got.data, sent.data)) {
    throw new Error(`the downloaded output differs from the upload (${got.sampleRate} Hz, ${got.channels} ch, ${got.data.length} bytes of samples; sent ${sent.sampleRate} Hz, ${sent.channels} ch, ${sent.data.length})`);
  }
  log(`✓ downloaded the output: the same ${got.data.length} bytes of samples`);

  const inputUrl = o.inputUrl ?? output.downloadUrl;
  const probeJob = await untilReady("ffprobe job", () => runJob(client, {
    binary: "ffprobe",
    inputs: { src: { type: "url", url: inputUrl } },
    ffmpegArgs: ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{src}}"],
  }), startedAt, d.patience);
  const probe = (await client.getResult(probeJob.id)).probe as { streams?: { codec_name?: string; sample_rate?: string }[] } | null;
  const stream = probe?.streams?.[0];
  if (!stream) throw new Error(`ffprobe job ${probeJob.id} found no stream in ${o.inputUrl ? o.inputUrl : "the output"}`);
  if (!o.inputUrl && (stream.codec_name !== "pcm_s16le" || stream.sample_rate !== String(SMOKE_WAV.sampleRate))) {
    throw new Error(`ffprobe job ${probeJob.id} read ${stream.codec_name} at ${stream.sample_rate} Hz, expected pcm_s16le at ${SMOKE_WAV.sampleRate}`);
  }
  log(`✓ ffprobe job ${probeJob.id} read a URL input (${stream.codec_name})`);
  log(`smoke test passed in ${Math.round((d.patience.clock.now() - startedAt) / 1000)} s`);
}

/** Creates a job and waits for its end; a job whose runner never worked is NotReadyYet (a new job is tried). */
async function runJob(client: FfjobsClient, body: CreateJobRequest): Promise<Job> {
  const created = await notReadyOnFault(() => client.createJob({ ...body, metadata: METADATA, timeoutSeconds: JOB_TIMEOUT_SECONDS }));
  const job = await client.waitForJob(created.id, { timeoutMs: JOB_WAIT_MS }).catch(async (err: Error) => {
    // Still queued: no runner took it (yet). Cancel it, so only the next try runs.
    if (err instanceof FfjobsError) throw err;
    await client.cancelJob(created.id).catch(() => {});
    throw new NotReadyYet(`job ${created.id} did not finish within ${JOB_WAIT_MS / 60_000} min`);
  });
  if (job.status === "completed") return job;
  if (job.errorCode && RUNNER_FAULT_CODES.includes(job.errorCode)) throw new NotReadyYet(`job ${job.id} ${job.status} ${job.errorCode}`);
  const result = await client.getResult(job.id).catch(() => null);
  throw new Error(`job ${job.id} ${job.status}: ${job.errorCode} ${job.errorMessage ?? ""}${result?.stderrTail ? `\n${result.stderrTail}` : ""}`);
}

/**
 * Not ready: no connection yet, a 5xx, or an answer that is not the API's JSON (a new workers.dev
 * name can answer Cloudflare's own page for a while). A 401 (a wrong key) and other 4xx are final.
 */
async function notReadyOnFault<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof FfjobsError) {
      if (err.status === 401) throw new Error("the API key was refused (401)");
      if (err.status >= 500 || err.code.startsWith("HTTP_")) throw new NotReadyYet(`HTTP ${err.status} ${err.code}`);
      throw err;
    }
    if (err instanceof TypeError) throw new NotReadyYet(`cannot connect: ${(err.cause as Error | undefined)?.message ?? err.message}`);
    throw err;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
