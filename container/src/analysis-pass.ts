import { availableParallelism } from "node:os";
import { join } from "node:path";
import { createErrorLog, createLoudnessLines, type AnalysisMeasures } from "../../src/jobs/checks/analysis-log.ts";
import { analysisArguments } from "../../src/jobs/checks/check-analysis.ts";
import type { OutputChecks } from "../../src/jobs/checks/output-checks.ts";
import { createFrameStats, type QualityReport } from "../../src/jobs/checks/quality-report.ts";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import { pinnedCommand } from "./cpu-pins.ts";
import { isolatedCommand } from "./isolation.ts";
import type { JobFolder } from "./job-folder.ts";
import { ended } from "./job-ended.ts";
import { PROBE_LIMITS } from "./probe.ts";
import { runProcess, type ProcessResult } from "./run-process.ts";
import type { RunnerSettings } from "./settings.ts";
import { killUidProcesses } from "./uid-reaper.ts";

/** Where a job's measuring runs: its folder and sandbox, its deadline, its CPU, its cancel. */
export type PassContext = {
  folder: JobFolder;
  settings: RunnerSettings;
  deadline: number;
  canceled: AbortSignal;
  /** The CPU the job's commands are pinned to (RUNNER_PIN_CPUS), or null. */
  cpu: number | null;
};

export type PassResult = { measures: AnalysisMeasures | null; failure: string | null; report: QualityReport | null };

/**
 * The analysis pass over an output (src/jobs/checks/check-analysis.ts), run as every measuring process
 * is (measureInSandbox). Its log and stdout are read as they come (analysis-log.ts, quality-report.ts). A pass that does not exit 0 measured nothing: only
 * the errors it counted stand (a decode that broke off is what `fullDecode` is asked to find).
 */
export async function runAnalysisPass(
  ctx: PassContext,
  name: string,
  checks: OutputChecks,
  fps: number | null,
): Promise<PassResult> {
  const { folder } = ctx;
  const referencePath = checks.quality ? (folder.visiblePath(checks.quality.against) ?? null) : null;
  const argv = analysisArguments(checks, folder.visiblePath(name)!, referencePath, inputSafetyOptions);
  const log = createErrorLog();
  const frames = createFrameStats();
  const loudness = createLoudnessLines();
  const done = await measureInSandbox(ctx, "ffmpeg", argv, {
    onStdoutText: (text) => {
      frames.push(text);
      loudness.push(text);
    },
    onStderrText: (text) => log.push(text),
  });
  const errors = log.errors();
  if (done.exitCode !== 0) {
    const why = errors.errors.at(-1) ?? `ffmpeg exited ${done.exitCode ?? done.signal}`;
    return {
      measures: { ...errors, integratedLufs: null, truePeakDbtp: null, psnr: null, ssim: null },
      failure: `ffmpeg could not read it through: ${why}`,
      report: null,
    };
  }
  // The measures are the filters' own output: the report's means, ebur128's last values.
  const report = checks.quality ? frames.report(fps) : null;
  const measures = {
    ...errors,
    ...loudness.measures(),
    psnr: report?.psnr.mean ?? null,
    ssim: report?.ssim.mean ?? null,
  };
  return { measures, failure: null, report };
}

/** Packets read for their timestamps: 9 hours at 60 fps. A longer video is counted as far as this. */
const MAX_PACKETS = 2_000_000;

/**
 * The first video stream's packet timestamps (presentation times, in the order read), by ffprobe (a
 * demux, no decode), run as every measuring process is (measureInSandbox), its output read as it comes:
 * what `frameCount` counts and `continuity` measures. Null when ffprobe could not read them.
 */
export async function readVideoPacketTimes(ctx: PassContext, name: string): Promise<Float64Array | null> {
  const path = ctx.folder.visiblePath(name)!;
  const argv = [
    "-v",
    "error",
    ...inputSafetyOptions(path),
    "-select_streams",
    "v:0",
    "-show_entries",
    "packet=pts_time",
    "-of",
    "csv=p=0",
    path,
  ];
  let times: Float64Array = new Float64Array(4096);
  let count = 0;
  let partial = "";
  const read = (line: string) => {
    // The time before any comma: an MPEG-TS packet's line goes on with its side data (`10.000000,`).
    const t = Number(line.slice(0, 32).split(",")[0]);
    if (line === "" || line.startsWith("N/A") || !Number.isFinite(t) || count >= MAX_PACKETS) return;
    if (count === times.length) times = growTo(times, times.length * 2);
    times[count++] = t;
  };
  const done = await measureInSandbox(ctx, "ffprobe", argv, {
    onStdoutText: (text) => {
      const lines = (partial + text).split("\n");
      partial = lines.pop()!.slice(0, 64);
      for (const line of lines) read(line.trim());
    },
  });
  read(partial.trim());
  return done.exitCode === 0 ? times.slice(0, count) : null;
}

/**
 * One measuring process of a job's checks: in its sandbox, as the job, on its CPU, its memory limit the
 * job's, within its deadline (running out of it ends the job JOB_TIMEOUT, as the command would; its CPU
 * time bounded by the deadline's wall time on every core), stopped by a cancel; its outputs read as they come.
 */
export async function measureInSandbox(
  ctx: PassContext,
  binary: "ffmpeg" | "ffprobe",
  argv: string[],
  read: { onStdoutText: (text: string) => void; onStderrText?: (text: string) => void },
  measuring = "its outputs' checks were measured",
): Promise<ProcessResult> {
  const { folder, settings } = ctx;
  const timeoutMs = Math.max(1, ctx.deadline - Date.now());
  const limits = {
    ...PROBE_LIMITS,
    cpuSeconds: Math.ceil(timeoutMs / 1000) * availableParallelism(),
    addressSpaceBytes: settings.maxMemoryBytes,
  };
  const isolated = isolatedCommand(settings, folder, binary, argv, limits);
  const command = { ...isolated, ...pinnedCommand(isolated, ctx.cpu) };
  const proc = runProcess({
    file: command.file,
    args: command.args,
    cwd: join(folder.root, "work"),
    env: command.env,
    timeoutMs,
    maxStdoutBytes: 4096,
    maxStderrBytes: 4096,
    ...read,
    afterExit: folder.uid === null ? undefined : () => killUidProcesses(folder.uid!),
  });
  ctx.canceled.addEventListener("abort", proc.cancel, { once: true });
  try {
    const done = await proc.done;
    if (done.timedOut) throw ended("JOB_TIMEOUT", `The job's time limit ran out while ${measuring}`);
    return done;
  } finally {
    ctx.canceled.removeEventListener("abort", proc.cancel);
  }
}

function growTo(values: Float64Array, length: number): Float64Array {
  const grown = new Float64Array(length);
  grown.set(values);
  return grown;
}
