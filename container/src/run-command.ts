import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { RunnerJobRequest, RunnerOutcome, RunnerProgress, RunnerStep } from "../../src/runner/runner-protocol.ts";
import { explainFailure } from "./command.ts";
import { buildArgv } from "../../src/jobs/runner-request/command-line.ts";
import { fileCount, folderBytes, type JobFolder } from "./job-folder.ts";
import { directoryFileLimit } from "./directory-file-limit.ts";
import { createProgressParser } from "./progress.ts";
import { runProcess, type ProcessResult } from "./run-process.ts";
import type { Limits } from "./sandbox.ts";
import { isolatedCommand } from "./isolation.ts";
import { pinnedCommand } from "./cpu-pins.ts";
import type { RunnerSettings } from "./settings.ts";
import { ended } from "./job-ended.ts";
import { createStallWatch } from "./stall-watch.ts";
import { processTreeCpuMs } from "./process-cpu.ts";
import { killUidProcesses } from "./uid-reaper.ts";
import { timedOutMessage } from "../../src/jobs/request/job-request.ts";

const QUOTA_CHECK_INTERVAL_MS = 250;
/** The stall watch's CPU sample: a few reads of /proc per second would cost more than they tell. */
const CPU_SAMPLE_INTERVAL_MS = 1000;
const PROCESS_LIMIT = 512;
const OPEN_FILES_LIMIT = 1024;

export type RunResult = Pick<RunnerOutcome, "exitCode" | "runtimeMs" | "stdout" | "stderrTail">;

export type CommandContext = {
  req: RunnerJobRequest;
  folder: JobFolder;
  settings: RunnerSettings;
  deadline: number;
  /** The inputs' duration once probed (progress percent), else null. */
  durationSeconds: () => number | null;
  onProgress: (p: RunnerProgress) => void;
  onCancelable: (cancel: () => void) => void;
  /** Pinned to this CPU (RUNNER_PIN_CPUS), or null. */
  cpu?: number | null;
};

/**
 * Runs one command sandboxed under the job's limits and deadline; throws JobEnded when it does not
 * exit 0 (with what it printed). The disk quota counts everything the job writes: out/ and work/.
 */
export async function runCommand(step: RunnerStep, ctx: CommandContext): Promise<RunResult> {
  const { req, folder, settings } = ctx;
  const timeoutMs = Math.max(1, ctx.deadline - Date.now());
  const limits: Limits = {
    cpuSeconds: Math.ceil(timeoutMs / 1000) * availableParallelism(),
    addressSpaceBytes: settings.maxMemoryBytes,
    fileSizeBytes: settings.maxOutputBytes + 1024 * 1024,
    openFiles: OPEN_FILES_LIMIT,
    processes: PROCESS_LIMIT,
  };
  const argv = buildArgv(step.binary, step.args, folder.visiblePath, settings.maxOutputBytes);
  const isolated = isolatedCommand(settings, folder, step.binary, argv, limits);
  const command = { ...isolated, ...pinnedCommand(isolated, ctx.cpu ?? null) };
  // ffprobe reports no progress; its run is bounded by the job's deadline alone.
  const stall = step.binary === "ffmpeg" ? createStallWatch(step.binary, settings.stall) : null;
  const proc = runProcess({
    file: command.file,
    args: command.args,
    cwd: join(folder.root, "work"),
    env: command.env,
    timeoutMs,
    maxStdoutBytes: settings.maxStdoutBytes,
    maxStderrBytes: settings.maxStderrBytes,
    onProgressText: createProgressParser(ctx.durationSeconds, ctx.onProgress, (block) => stall?.progressSeen(block)),
    // Under the uid fallback nothing of the command outlives it, not even what left its process group.
    afterExit: folder.uid === null ? undefined : () => killUidProcesses(folder.uid!),
  });
  ctx.onCancelable(proc.cancel);
  // Limits hold while the command writes, not after it: bytes of the job's folders and the file
  // count of each directory output, looked at every QUOTA_CHECK_INTERVAL_MS.
  let overLimit: string | null = null;
  let stalled: string | null = null;
  const directories = req.outputs
    .filter((o) => o.kind === "directory")
    .map((o) => ({ name: o.name, path: folder.hostPath(o.name)!, maxFiles: directoryFileLimit(o) }));
  const watcher = setInterval(async () => {
    if (overLimit) return;
    const written = (await folderBytes(join(folder.root, "out"))) + (await folderBytes(join(folder.root, "work")));
    if (written > settings.jobDiskQuotaBytes)
      overLimit = `The job's files grew past the ${settings.jobDiskQuotaBytes}-byte quota and it was stopped`;
    for (const d of directories) {
      const files = await fileCount(d.path);
      if (!overLimit && files > d.maxFiles)
        overLimit = `Directory output "${d.name}" passed ${d.maxFiles} files while the command ran (${files} so far) and it was stopped`;
    }
    if (overLimit) proc.cancel();
  }, QUOTA_CHECK_INTERVAL_MS);
  const stallWatcher =
    stall &&
    setInterval(() => {
      stall.cpuSampled(proc.pid === undefined ? null : processTreeCpuMs(proc.pid));
      stalled ??= stall.verdict();
      if (stalled) proc.cancel();
    }, CPU_SAMPLE_INTERVAL_MS);
  const r = await proc.done.finally(() => {
    clearInterval(watcher);
    if (stallWatcher) clearInterval(stallWatcher);
  });
  const ran = {
    exitCode: r.exitCode,
    runtimeMs: r.runtimeMs,
    stdout: folder.scrub(r.stdout),
    stderrTail: folder.scrub(r.stderrTail),
  };
  if (overLimit) throw ended("LIMIT_EXCEEDED", overLimit, ran);
  if (stalled) throw ended("JOB_STALLED", stalled, ran);
  if (r.canceled) throw ended("CANCELED", "The job was canceled", ran);
  if (r.timedOut) throw ended("JOB_TIMEOUT", timedOutMessage(req.timeoutMs), ran);
  const limitHit = limitSignal(r);
  if (limitHit) throw ended("LIMIT_EXCEEDED", limitHit, ran);
  if (r.exitCode !== 0) {
    const reason = explainFailure(ran.stderrTail);
    throw ended("PROCESS_FAILED", `${step.binary} exited with code ${r.exitCode}${reason ? `: ${reason}` : ""}`, ran);
  }
  return ran;
}

/** A process killed by a resource limit says so by its signal (or a bubblewrap-relayed exit code). */
function limitSignal(r: ProcessResult): string | null {
  if (r.signal === "SIGXFSZ" || r.exitCode === 128 + 25)
    return "An output reached the file-size limit and the process was stopped";
  if (r.signal === "SIGXCPU" || r.exitCode === 128 + 24) return "The job used up its CPU-time limit and was stopped";
  return null;
}
