import type { RunnerProbeRequest, RunnerProbeResult } from "../../src/runner/runner-protocol.ts";
import { dirname } from "node:path";
import { createJobFolder, openJobFolder, removeJobFolder, type JobFolder } from "./job-folder.ts";
import { startInputServer } from "./input-server.ts";
import { JobEnded } from "./job-ended.ts";
import { createProber, summarizeProbe } from "./probe.ts";
import { claimedVideoLengthSeconds, splitFactsOf } from "../../src/jobs/split/split-facts.ts";
import { probeVideoEnd } from "./probe-video-end.ts";
import { scanCuts } from "./scan-cuts.ts";
import { mediaFactsOf } from "../../src/presets/media-facts.ts";
import { egressOptions, FetchFailure, safeDownload } from "./safe-fetch.ts";
import type { RunnerSettings } from "./settings.ts";

/**
 * A dry run's look at a job's inputs, under the same rules as a job's (address policy, size limit,
 * deadline): where the runner streams, ffprobe reads each by range, only what it needs; else each is
 * copied (its first bytes) into a folder of its own; probed in the sandbox, and gone again. One
 * input's failure is reported for that input; the others are still probed.
 */
const MiB = 1024 * 1024;
/**
 * A dry run reads at most this much of each input: enough for the headers of files whose index is
 * at the start, and a bound on what an unbilled probe costs (issue on streamed inputs: then only
 * what ffprobe asks for is read).
 */
export const PROBE_MAX_INPUT_BYTES = 32 * MiB;
/** A dry run's ffprobe, reading by range, fetches at most this much of an input from its origin. */
export const PROBE_MAX_READ_BYTES = 64 * MiB;
/** A split plan's scan of its cuts (scan-cuts.ts) reads at most this much more: its windows, a few seconds of video each. */
export const SCENE_SCAN_MAX_READ_BYTES = 256 * MiB;

export async function probeInputs(req: RunnerProbeRequest, settings: RunnerSettings): Promise<RunnerProbeResult> {
  const request = { jobId: req.probeId, inputs: req.inputs, outputs: [] };
  const streamed = new Set(settings.streamInputs ? req.inputs.map((i) => i.name) : []);
  const folder = await createJobFolder(settings.workDir, request, settings.isolation, streamed);
  try {
    await openJobFolder(folder);
    const probe = settings.streamInputs ? probeByRange : probeCopy;
    const results = await Promise.all(
      req.inputs.map(async (input) => [input.name, await probe(input, folder, req, settings)] as const),
    );
    return { inputs: Object.fromEntries(results) };
  } finally {
    await removeJobFolder(folder).catch(() => {});
  }
}

type InputProbe = RunnerProbeResult["inputs"][string];
type ProbedInput = RunnerProbeRequest["inputs"][number];

/** ffprobe reads the input by range, as a job's would: only what it asks for, within PROBE_MAX_READ_BYTES. */
async function probeByRange(
  input: ProbedInput,
  folder: JobFolder,
  req: RunnerProbeRequest,
  settings: RunnerSettings,
): Promise<InputProbe> {
  let server: Awaited<ReturnType<typeof startInputServer>> | null = null;
  const deadline = Date.now() + req.timeoutMs;
  try {
    server = await startInputServer(
      [
        {
          name: input.name,
          url: input.url,
          trusted: input.trusted,
          path: new URL(folder.visiblePath(input.name)!).pathname,
          copyPath: folder.hostPath(input.name)!,
        },
      ],
      {
        fetch: { allowedPrivateHosts: req.allowedPrivateHosts, ...egressOptions(settings) },
        maxInputBytes: settings.maxInputBytes,
        // An origin without ranges: its first bytes, as before streaming.
        maxCopiedInputBytes: PROBE_MAX_INPUT_BYTES,
        truncateCopies: true,
        // A scene scan decodes windows of the video: room for them beside the headers.
        maxReadBytes: req.sceneScan ? PROBE_MAX_READ_BYTES + SCENE_SCAN_MAX_READ_BYTES : PROBE_MAX_READ_BYTES,
        originIdleMs: settings.originIdleMs,
        deadline,
        canceled: new AbortController().signal,
      },
    );
    const streamed = { ...folder, inputSocketDir: dirname(server.socketPath) };
    const probe = await createProber(streamed, settings)(input.name);
    const metadata = summarizeProbe(probe, Number(probe?.format?.size ?? 0));
    if (!metadata)
      return {
        ok: false,
        error: `ffprobe could not read it as media${server.failure() ? `: ${server.failure()!.outcome.errorMessage}` : ""}`,
      };
    const split = splitFactsOf(probe);
    // A split's plan: where the video really ends (a copy cut at PROBE_MAX_INPUT_BYTES, below, could not say).
    const claimed = split && req.measureVideoEnd ? claimedVideoLengthSeconds(split) : null;
    if (split && claimed !== null)
      split.videoEndSeconds = await probeVideoEnd(streamed, settings, input.name, split.video!.startSeconds + claimed);
    const cutScans = req.sceneScan
      ? await scanCuts(streamed, settings, input.name, req.sceneScan, deadline)
      : undefined;
    return {
      ok: true,
      metadata,
      durationSeconds: metadata.durationSeconds,
      split,
      media: mediaFactsOf(probe),
      ...(cutScans ? { cutScans } : {}),
    };
  } catch (err) {
    return {
      ok: false,
      error:
        err instanceof JobEnded
          ? err.outcome.errorMessage!.replace(/^Input "[^"]*" /, "")
          : "could not be fetched: network error",
    };
  } finally {
    await server?.close();
  }
}

/** The input's first PROBE_MAX_INPUT_BYTES copied, then probed (a runner that does not stream). */
async function probeCopy(
  input: ProbedInput,
  folder: JobFolder,
  req: RunnerProbeRequest,
  settings: RunnerSettings,
): Promise<InputProbe> {
  try {
    const fetched = await safeDownload(input.url, folder.hostPath(input.name)!, {
      allowedPrivateHosts: req.allowedPrivateHosts,
      trusted: input.trusted,
      maxBytes: PROBE_MAX_INPUT_BYTES,
      truncate: true,
      timeoutMs: req.timeoutMs,
      ...egressOptions(settings),
    });
    await openJobFolder(folder);
    const probe = await createProber(folder, settings)(input.name);
    const metadata = summarizeProbe(probe, fetched.declaredBytes ?? fetched.bytes);
    if (!metadata) {
      const why = fetched.truncated
        ? ` from its first ${PROBE_MAX_INPUT_BYTES / MiB} MiB (a dry run reads no more; a file whose index is at its end needs the whole file, which the job itself reads)`
        : "";
      return { ok: false, error: `ffprobe could not read it as media${why}` };
    }
    return {
      ok: true,
      metadata,
      durationSeconds: metadata.durationSeconds,
      split: splitFactsOf(probe),
      media: mediaFactsOf(probe),
    };
  } catch (err) {
    return { ok: false, error: `could not be fetched: ${err instanceof FetchFailure ? err.message : "network error"}` };
  }
}
