import { basename, join } from "node:path";
import type { RunnerJobRequest, RunnerOutcome, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import type { RunResult } from "./run-command.ts";
import type { JobFolder } from "./job-folder.ts";
import { ended, JobEnded } from "./job-ended.ts";
import { createBusyClock } from "./busy-clock.ts";
import { createProber } from "./probe.ts";
import { storeDirectory } from "./store-directory.ts";
import type { RunnerSettings } from "./settings.ts";
import type { DestinationSends } from "./send-to-destination.ts";
import type { EarlyProbes } from "./early-output-probes.ts";
import type { OutputStreams } from "./output-streams.ts";
import { pngHeaderProbe } from "./png-header-probe.ts";
import { createOutputVerifier } from "./verify-output.ts";
import { sendFiles, type FileContext, type OutputProber } from "./send-files.ts";
import { jobOwner, openFileIn, openTrustedDir, OutputRefused, type OpenedDir, type OpenedFile } from "./output-file.ts";

/**
 * Checks every declared file output first (a missing or cut-short one fails the job before anything
 * is stored), then uploads and probes them all at once: each output's probe runs while it uploads.
 * An output with a destination goes to the user's own storage instead (send-to-destination.ts), by the
 * job's deadline; the wall time of those sends is billed as run time (docs/api.md: the client's
 * storage is what is slow, and it holds a runner slot). Directory outputs are stored beside them
 * (store-directory.ts). Answers the outputs and the run as billed.
 */
export async function storeOutputs(
  req: RunnerJobRequest,
  folder: JobFolder,
  settings: RunnerSettings,
  ran: RunResult,
  canceled: AbortSignal,
  deadline: number,
  started: { probes: EarlyProbes; streams: OutputStreams; cpu: number | null },
): Promise<{ outputs: RunnerOutcome["outputs"]; ran: RunResult }> {
  const { probes: earlyProbes, streams } = started;
  const prober = createProber(folder, settings);
  // A still PNG's header where it settles what ffprobe would say; else the probe started beside the
  // command, through the output's descriptor; by path, after, where there is none, or where it found
  // nothing (not where it was stopped: its time ran out, or a cancel).
  const probeOutput: OutputProber = async ({ name }, file) => {
    const fromHeader = await pngHeaderProbe(file, basename(folder.hostPath(name)!)).catch(() => null);
    if (fromHeader) return fromHeader;
    const early = earlyProbes.probe(name, file, canceled);
    const found = early ? await early : null;
    return found === "stopped" ? null : (found ?? (await prober(name)));
  };
  const sends: DestinationSends = { deadline, clock: createBusyClock() };
  const verify = createOutputVerifier({
    folder,
    settings,
    prober,
    deadline,
    canceled,
    cpu: started.cpu,
    billed: sends.clock,
  });
  const files: FileContext = {
    settings,
    ran,
    probeOutput,
    verify,
    enforceChecks: req.onFailedCheck !== "report",
    canceled,
    allowedPrivateHosts: req.allowedPrivateHosts,
    sends,
    streams,
  };
  const stored = await Promise.allSettled([
    storeFiles(
      req.outputs.filter((o) => o.kind !== "directory"),
      folder,
      files,
    ),
    Promise.all(
      req.outputs
        .filter((o) => o.kind === "directory")
        .map((o) => storeDirectory(o, folder, settings, prober, ran, canceled, req.allowedPrivateHosts, sends)),
    ),
  ]);
  const billed = { ...ran, runtimeMs: ran.runtimeMs + sends.clock.ms() };
  // A cancel during the upload ends the job canceled (charged for the run), not as an upload failure.
  if (canceled.aborted) throw ended("CANCELED", "The job was canceled while its outputs were being stored", billed);
  const failed = stored.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed)
    throw failed.reason instanceof JobEnded
      ? new JobEnded({ ...failed.reason.outcome, runtimeMs: billed.runtimeMs })
      : failed.reason;
  return { outputs: stored.flatMap((r) => (r as PromiseFulfilledResult<RunnerOutcome["outputs"]>).value), ran: billed };
}

async function storeFiles(
  outputs: RunnerOutput[],
  folder: JobFolder,
  ctx: FileContext,
): Promise<RunnerOutcome["outputs"]> {
  if (outputs.length === 0) return [];
  const out = await openTrustedDir(join(folder.root, "out"));
  const opened = await Promise.allSettled(outputs.map((output) => openOutput(out, output, folder, ctx.ran)));
  try {
    const refused = opened.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (refused) throw refused.reason;
    const files = opened.map((r, i) => ({ output: outputs[i], file: (r as PromiseFulfilledResult<OpenedFile>).value }));
    return await sendFiles(files, ctx);
  } finally {
    await Promise.all(opened.map((r) => (r.status === "fulfilled" ? r.value.handle.close().catch(() => {}) : null)));
    await out.handle.close().catch(() => {});
  }
}

/** A declared file output, opened as output-file.ts says: no link followed, the job's own regular file, or the job fails. */
async function openOutput(
  out: OpenedDir,
  output: RunnerOutput,
  folder: JobFolder,
  ran: RunResult,
): Promise<OpenedFile> {
  try {
    return await openFileIn(out, basename(folder.hostPath(output.name)!), jobOwner(folder.uid));
  } catch (err) {
    const why = err instanceof OutputRefused ? ` as a file of its own: what is in its place ${err.message}` : "";
    throw ended("OUTPUT_MISSING", `The command did not write output "${output.name}" (${output.fileName})${why}`, ran);
  }
}
