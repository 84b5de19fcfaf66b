// The smoke test of a deployed (or local) ffjobs: the runner answers, an upload lands in storage, an
// ffmpeg job reads it and stores an output that downloads byte-exact, and an ffprobe job reads a URL
// input (by default that output's download URL: through the container's egress in production); then
// the platform checks (platform-checks.ts), each printed as expected or not, with what to do.
import { createClient } from "../../client/src/index.ts";
import { boundedFetch } from "./bounded-fetch.ts";
import { untilReady, type Patience } from "./cold-start.ts";
import { failures, type Finding } from "./finding.ts";
import { runPlatformChecks } from "./platform-checks.ts";
import { redactedError, redactingLog } from "./safe-output.ts";
import { completed, jobRunner, notReadyOnFault } from "./smoke-job.ts";
import { makeWav, readWav, SMOKE_WAV } from "./wav.ts";

export type SmokeOptions = {
  url: string;
  apiKey: string;
  /** a public media URL for the probe job instead of the output's */
  inputUrl?: string;
  /** the public name the platform report looks up and tries to reach from a container */
  publicHost?: string;
};
export type SmokeDeps = {
  fetch: typeof fetch;
  patience: Patience;
  /** Each request's deadline and answer cap (bounded-fetch.ts); tests shorten them. */
  requestLimits?: { timeoutMs: number; maxBytes: number };
};

/**
 * Throws on a failure of the service itself (no upload, a job that fails); otherwise answers the
 * platform checks' findings, which the caller judges (failures()). Every request is bounded in time
 * and size (bounded-fetch.ts) and nothing printed or thrown holds the API key (safe-output.ts): the
 * deployment under test is not trusted yet.
 */
export async function runSmoke(o: SmokeOptions, deps: SmokeDeps): Promise<Finding[]> {
  const secrets = [o.apiKey];
  const d: SmokeDeps = {
    fetch: boundedFetch(deps.fetch, deps.requestLimits),
    patience: { ...deps.patience, log: redactingLog(deps.patience.log, secrets) },
  };
  try {
    return await smokeSteps(o, d);
  } catch (err) {
    throw redactedError(err, secrets);
  }
}

async function smokeSteps(o: SmokeOptions, d: SmokeDeps): Promise<Finding[]> {
  const log = d.patience.log;
  const startedAt = d.patience.clock.now();
  const client = createClient({ baseUrl: o.url, apiKey: o.apiKey, fetch: d.fetch });
  const runJob = jobRunner(client, startedAt, d.patience);

  log(`smoke test of ${o.url}`);
  const caps = await untilReady("runner", () => notReadyOnFault(() => client.getCapabilities()), startedAt, d.patience);
  const sandbox = caps.sandbox as { mode?: string; description?: string } | undefined;
  if (sandbox?.mode === "unavailable")
    throw new Error(
      `the runner has no sandbox (${sandbox.description}): every job would fail SANDBOX_UNAVAILABLE. See docs/security.md.`,
    );
  log(`✓ the runner answers (sandbox: ${sandbox?.mode ?? "unknown"})`);

  const wav = makeWav();
  const asset = await client
    .uploadFile(new Blob([wav as Uint8Array<ArrayBuffer>]), { fileName: "ffjobs-smoke.wav", contentType: "audio/wav" })
    .catch((err: Error) => {
      throw new Error(`upload failed: ${err.message} (check the R2 secrets and R2_S3_ENDPOINT)`);
    });
  if (asset.status !== "ready" || asset.size !== wav.length)
    throw new Error(`the upload is ${asset.status} with ${asset.size} bytes, expected ready with ${wav.length}`);
  log(`✓ uploaded ${wav.length} bytes (file ${asset.id})`);

  const copy = await completed(
    client,
    await runJob("ffmpeg job", {
      inputs: { src: { type: "asset", assetId: asset.id } },
      outputs: { copy: { fileName: "ffjobs-smoke-copy.wav" } },
      ffmpegArgs: ["-i", "{{src}}", "-c:a", "pcm_s16le", "{{copy}}"],
    }),
  );
  const output = copy.outputs[0];
  if (!output?.downloadUrl) throw new Error(`job ${copy.id} completed without an output to download`);
  log(`✓ ffmpeg job ${copy.id} completed in ${copy.runtimeSeconds} s`);

  const res = await d.fetch(output.downloadUrl);
  if (!res.ok) throw new Error(`downloading the output failed: HTTP ${res.status}`);
  const got = readWav(new Uint8Array(await res.arrayBuffer()));
  const sent = readWav(wav);
  if (got.sampleRate !== sent.sampleRate || got.channels !== sent.channels || !sameBytes(got.data, sent.data)) {
    throw new Error(
      `the downloaded output differs from the upload (${got.sampleRate} Hz, ${got.channels} ch, ${got.data.length} bytes of samples; sent ${sent.sampleRate} Hz, ${sent.channels} ch, ${sent.data.length})`,
    );
  }
  log(`✓ downloaded the output: the same ${got.data.length} bytes of samples`);

  const inputUrl = o.inputUrl ?? output.downloadUrl;
  const probeJob = await completed(
    client,
    await runJob("ffprobe job", {
      binary: "ffprobe",
      inputs: { src: { type: "url", url: inputUrl } },
      ffmpegArgs: ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{src}}"],
    }),
  );
  const probe = (await client.getResult(probeJob.id)).probe as {
    streams?: { codec_name?: string; sample_rate?: string }[];
  } | null;
  const stream = probe?.streams?.[0];
  if (!stream)
    throw new Error(`ffprobe job ${probeJob.id} found no stream in ${o.inputUrl ? o.inputUrl : "the output"}`);
  if (!o.inputUrl && (stream.codec_name !== "pcm_s16le" || stream.sample_rate !== String(SMOKE_WAV.sampleRate))) {
    throw new Error(
      `ffprobe job ${probeJob.id} read ${stream.codec_name} at ${stream.sample_rate} Hz, expected pcm_s16le at ${SMOKE_WAV.sampleRate}`,
    );
  }
  log(`✓ ffprobe job ${probeJob.id} read a URL input (${stream.codec_name})`);

  log('platform checks (docs/deploy.md, "The smoke test"):');
  const findings = await runPlatformChecks(
    { url: o.url, apiKey: o.apiKey, publicHost: o.publicHost },
    { fetch: d.fetch, client, runJob, patience: d.patience, startedAt },
    { asset, wav },
  );
  const failed = failures(findings);
  const seconds = Math.round((d.patience.clock.now() - startedAt) / 1000);
  if (failed.length)
    log(
      `smoke test FAILED in ${seconds} s: ${failed.length} platform check(s) not as expected (${failed.map((f) => f.check).join(", ")})`,
    );
  else log(`smoke test passed in ${seconds} s`);
  return findings;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
