import { availableParallelism } from "node:os";
import { join } from "node:path";
import { checkArguments } from "../../src/jobs/policy/argument-policy.ts";
import type { RunnerJobRequest, RunnerJobState, RunnerOutcome, RunnerProgress } from "../../src/runner/runner-protocol.ts";
import { buildArgv, childEnvironment, explainFailure } from "./command.ts";
import { createJobFolder, folderBytes, removeJobFolder, type JobFolder } from "./job-folder.ts";
import { createProgressParser } from "./progress.ts";
import { createProber, longestDurationSeconds } from "./probe.ts";
import { runProcess, type ProcessResult } from "./run-process.ts";
import { limitedCommand, sandboxedCommand, type Limits } from "./sandbox.ts";
import { FetchFailure, safeDownload } from "./safe-fetch.ts";
import type { RunnerSettings } from "./settings.ts";
import { JobEnded, ended } from "./job-ended.ts";
import { storeOutputs } from "./store-outputs.ts";
import { trustedAgent } from "./trust.ts";
import { createPhaseClock } from "./phase-clock.ts";

export type JobHooks = {
  setState: (s: RunnerJobState) => void;
  setProgress: (p: RunnerProgress) => void;
  /** Called once the process runs, with a function that kills it. */
  onCancelable: (cancel: () => void) => void;
  /** Aborted when the job is canceled. */
  canceled: AbortSignal;
};

const QUOTA_CHECK_INTERVAL_MS = 500;
/**
 * The inputs' duration (for progress percent) is probed only once a job has run this long, and
 * beside it, not before it: short jobs never pay for the extra ffprobe.
 */
const DURATION_PROBE_DELAY_MS = 300;
const PROCESS_LIMIT = 512;
const OPEN_FILES_LIMIT = 1024;

/** Fetch inputs, check the arguments, run the binary sandboxed, store declared outputs, clean up. Never throws. */
export async function executeJob(req: RunnerJobRequest, settings: RunnerSettings, hooks: JobHooks): Promise<RunnerOutcome> {
  const deadline = Date.now() + req.timeoutMs;
  const names = { inputs: new Set(req.inputs.map((i) => i.name)), outputs: new Set(req.outputs.map((o) => o.name)) };
  if (settings.sandbox === "on" && settings.sandboxProblem) {
    // The operator reads this on the job: what failed, and the setting that decides (docs/security.md).
    const reason = `The runner's sandbox (bubblewrap) cannot start on this host, so it runs no jobs: ${settings.sandboxProblem.slice(0, 200)}`;
    return ended("SANDBOX_UNAVAILABLE", `${reason}. Operators: allow user namespaces, or set CONTAINER_RUNNER_SANDBOX=off`).outcome;
  }
  const refused = checkArguments(req.binary, req.args, names);
  if (refused.length) return ended("ARGUMENTS_REFUSED", `Argument ${refused[0].index}: ${refused[0].message}`).outcome;
  const clock = createPhaseClock();
  let folder: JobFolder | null = null;
  try {
    folder = await createJobFolder(settings.workDir, req, settings.sandbox === "on");
    hooks.setState("fetching");
    await fetchInputs(req, folder, settings, deadline, hooks.canceled);
    if (hooks.canceled.aborted) throw ended("CANCELED", "The job was canceled");
    clock.next("runMs");
    hooks.setState("running");
    const ran = await runBinary(req, folder, settings, deadline, hooks);
    clock.next("storeMs");
    hooks.setState("uploading");
    const outputs = await storeOutputs(req, folder, settings, ran);
    return { status: "completed", errorCode: null, errorMessage: null, outputs, ...ran, ...clock.stop() };
  } catch (err) {
    if (err instanceof JobEnded) return { ...err.outcome, ...clock.stop() };
    console.error(`job ${req.jobId}: unexpected runner error`, err);
    return { ...ended("INTERNAL", "The runner failed unexpectedly").outcome, ...clock.stop() };
  } finally {
    // A folder that cannot be removed now is removed when the runner next starts.
    if (folder) await removeJobFolder(folder).catch((err) => console.error(`job ${req.jobId}: job folder not removed`, err));
  }
}

/**
 * All inputs at once: a job with several inputs waits for the slowest, not for their sum. The first
 * failure stops the others, and every download has ended before the job folder can be removed.
 */
async function fetchInputs(req: RunnerJobRequest, folder: JobFolder, settings: RunnerSettings, deadline: number, canceled: AbortSignal): Promise<void> {
  const stopOthers = new AbortController();
  const results = await Promise.allSettled(
    req.inputs.map(async (input) => {
      try {
        await safeDownload(input.url, folder.hostPath(input.name)!, {
          allowedPrivateHosts: req.allowedPrivateHosts,
          trusted: input.trusted,
          maxBytes: settings.maxInputBytes,
          timeoutMs: Math.max(1, deadline - Date.now()),
          signal: AbortSignal.any([canceled, stopOthers.signal]),
          httpsAgent: trustedAgent(settings.extraCaFile),
          defaultPortsOnly: settings.egressPorts === "default",
        });
      } catch (err) {
        if (stopOthers.signal.aborted && !canceled.aborted) throw null; // another input failed first
        stopOthers.abort();
        if (canceled.aborted) throw ended("CANCELED", "The job was canceled");
        if (err instanceof FetchFailure && err.kind === "timeout" && Date.now() >= deadline) {
          throw ended("JOB_TIMEOUT", "The job's time limit ran out while fetching inputs");
        }
        throw ended("INPUT_FETCH_FAILED", `Input "${input.name}" could not be fetched: ${err instanceof FetchFailure ? err.message : "network error"}`);
      }
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected" && r.reason !== null);
  if (failed) throw failed.reason;
}

export type RunResult = Pick<RunnerOutcome, "exitCode" | "runtimeMs" | "stdout" | "stderrTail">;

async function runBinary(req: RunnerJobRequest, folder: JobFolder, settings: RunnerSettings, deadline: number, hooks: JobHooks): Promise<RunResult> {
  const timeoutMs = Math.max(1, deadline - Date.now());
  const limits: Limits = {
    cpuSeconds: Math.ceil(timeoutMs / 1000) * availableParallelism(),
    addressSpaceBytes: settings.maxMemoryBytes,
    fileSizeBytes: settings.maxOutputBytes + 1024 * 1024,
    openFiles: OPEN_FILES_LIMIT,
    processes: PROCESS_LIMIT,
  };
  let duration: number | null = null;
  const durationProbe = req.binary === "ffmpeg"
    ? setTimeout(() => void longestDurationSeconds(createProber(folder, settings), req.inputs.map((i) => i.name)).then((d) => (duration = d)), DURATION_PROBE_DELAY_MS)
    : undefined;
  const argv = buildArgv(req.binary, req.args, folder.visiblePath, settings.maxOutputBytes);
  const sandboxed = settings.sandbox === "on";
  const command = sandboxed ? sandboxedCommand(req.binary, argv, folder.root, limits, settings.bwrapPath) : limitedCommand(req.binary, argv, limits);
  const proc = runProcess({
    file: command.file,
    args: command.args,
    cwd: folder.root,
    env: sandboxed ? {} : childEnvironment(folder.root),
    timeoutMs,
    maxStdoutBytes: settings.maxStdoutBytes,
    maxStderrBytes: settings.maxStderrBytes,
    onProgressText: createProgressParser(() => duration, hooks.setProgress),
  });
  hooks.onCancelable(proc.cancel);
  let overQuota = false;
  const watcher = setInterval(async () => {
    if ((await folderBytes(join(folder.root, "out"))) > settings.jobDiskQuotaBytes) {
      overQuota = true;
      proc.cancel();
    }
  }, QUOTA_CHECK_INTERVAL_MS);
  const r = await proc.done.finally(() => {
    clearInterval(watcher);
    clearTimeout(durationProbe);
  });
  const ran = { exitCode: r.exitCode, runtimeMs: r.runtimeMs, stdout: folder.scrub(r.stdout), stderrTail: folder.scrub(r.stderrTail) };
  if (overQuota) throw ended("LIMIT_EXCEEDED", `The job's outputs grew past the ${settings.jobDiskQuotaBytes}-byte quota and it was stopped`, ran);
  if (r.canceled) throw ended("CANCELED", "The job was canceled", ran);
  if (r.timedOut) throw ended("JOB_TIMEOUT", `The job ran past its ${Math.round(req.timeoutMs / 1000)} s limit and was stopped`, ran);
  const limitHit = limitSignal(r);
  if (limitHit) throw ended("LIMIT_EXCEEDED", limitHit, ran);
  if (r.exitCode !== 0) {
    const reason = explainFailure(ran.stderrTail);
    throw ended("PROCESS_FAILED", `${req.binary} exited with code ${r.exitCode}${reason ? `: ${reason}` : ""}`, ran);
  }
  return ran;
}

/** A process killed by a resource limit says so by its signal (or a bubblewrap-relayed exit code). */
function limitSignal(r: ProcessResult): string | null {
  if (r.signal === "SIGXFSZ" || r.exitCode === 128 + 25) return "An output reached the file-size limit and the process was stopped";
  if (r.signal === "SIGXCPU" || r.exitCode === 128 + 24) return "The job used up its CPU-time limit and was stopped";
  return null;
}
