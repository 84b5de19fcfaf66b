import type { RunnerJobRequest, RunnerProbeRequest, RunnerProbeResult } from "../../src/runner/runner-protocol.ts";
import { createJobFolder, openJobFolder, removeJobFolder } from "./job-folder.ts";
import { createProber, summarizeProbe } from "./probe.ts";
import { egressOptions, FetchFailure, safeDownload } from "./safe-fetch.ts";
import type { RunnerSettings } from "./settings.ts";

/**
 * A dry run's look at a job's inputs: each fetched under the same rules as a job's (address
 * policy, size limit, deadline) into a folder of its own, probed in the sandbox, and gone again.
 * One input's failure is reported for that input; the others are still probed.
 */
const MiB = 1024 * 1024;
/**
 * A dry run reads at most this much of each input: enough for the headers of files whose index is
 * at the start, and a bound on what an unbilled probe costs (issue on streamed inputs: then only
 * what ffprobe asks for is read).
 */
export const PROBE_MAX_INPUT_BYTES = 32 * MiB;

export async function probeInputs(req: RunnerProbeRequest, settings: RunnerSettings): Promise<RunnerProbeResult> {
  const folder = await createJobFolder(settings.workDir, { jobId: req.probeId, inputs: req.inputs, outputs: [] } as unknown as RunnerJobRequest, settings.isolation);
  try {
    const prober = createProber(folder, settings);
    const results = await Promise.all(req.inputs.map(async (input) => {
      try {
        const fetched = await safeDownload(input.url, folder.hostPath(input.name)!, {
          allowedPrivateHosts: req.allowedPrivateHosts, trusted: input.trusted, maxBytes: PROBE_MAX_INPUT_BYTES, truncate: true, timeoutMs: req.timeoutMs,
          ...egressOptions(settings),
        });
        await openJobFolder(folder);
        const metadata = summarizeProbe(await prober(input.name), fetched.declaredBytes ?? fetched.bytes);
        if (!metadata) {
          const why = fetched.truncated ? ` from its first ${PROBE_MAX_INPUT_BYTES / MiB} MiB (a dry run reads no more; a file whose index is at its end needs the whole file, which the job itself reads)` : "";
          return [input.name, { ok: false as const, error: `ffprobe could not read it as media${why}` }] as const;
        }
        return [input.name, { ok: true as const, metadata, durationSeconds: metadata.durationSeconds }] as const;
      } catch (err) {
        return [input.name, { ok: false as const, error: `could not be fetched: ${err instanceof FetchFailure ? err.message : "network error"}` }] as const;
      }
    }));
    return { inputs: Object.fromEntries(results) };
  } finally {
    await removeJobFolder(folder).catch(() => {});
  }
}
