import { availableParallelism } from "node:os";
import { join } from "node:path";
import { createAnalysisLog, type AnalysisMeasures } from "../../src/jobs/checks/analysis-log.ts";
import { analysisArguments } from "../../src/jobs/checks/check-analysis.ts";
import type { OutputChecks } from "../../src/jobs/checks/output-checks.ts";
import { createFrameStats, type QualityReport } from "../../src/jobs/checks/quality-report.ts";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import { pinnedCommand } from "./cpu-pins.ts";
import { isolatedCommand } from "./isolation.ts";
import type { JobFolder } from "./job-folder.ts";
import { ended } from "./job-ended.ts";
import { PROBE_LIMITS, sandboxedFfprobe } from "./probe.ts";
import { runProcess } from "./run-process.ts";
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
 * The analysis pass over an output (src/jobs/checks/check-analysis.ts): ffmpeg in the job's sandbox, as
 * the job, on the job's CPU, its memory limit the job's, within the job's deadline (running out of it
 * ends the job JOB_TIMEOUT, as the command would), stopped by a cancel. Its log and stdout are read as
 * they come (analysis-log.ts, quality-report.ts). A pass that does not exit 0 measured nothing: only
 * the errors it counted stand (a decode that broke off is what `fullDecode` is asked to find).
 */
export async function runAnalysisPass(
  ctx: PassContext,
  name: string,
  checks: OutputChecks,
  fps: number | null,
): Promise<PassResult> {
  const { folder, settings } = ctx;
  const referencePath = checks.quality ? (folder.visiblePath(checks.quality.against) ?? null) : null;
  const argv = analysisArguments(checks, folder.visiblePath(name)!, referencePath, inputSafetyOptions);
  const timeoutMs = Math.max(1, ctx.deadline - Date.now());
  const limits = {
    ...PROBE_LIMITS,
    cpuSeconds: Math.ceil(timeoutMs / 1000) * availableParallelism(),
    addressSpaceBytes: settings.maxMemoryBytes,
  };
  const isolated = isolatedCommand(settings, folder, "ffmpeg", argv, limits);
  const command = { ...isolated, ...pinnedCommand(isolated, ctx.cpu) };
  const log = createAnalysisLog();
  const frames = createFrameStats();
  const proc = runProcess({
    file: command.file,
    args: command.args,
    cwd: join(folder.root, "work"),
    env: command.env,
    timeoutMs,
    maxStdoutBytes: 4096,
    maxStderrBytes: 4096,
    onStdoutText: (text) => frames.push(text),
    onStderrText: (text) => log.push(text),
    afterExit: folder.uid === null ? undefined : () => killUidProcesses(folder.uid!),
  });
  ctx.canceled.addEventListener("abort", proc.cancel, { once: true });
  try {
    const done = await proc.done;
    if (done.timedOut)
      throw ended("JOB_TIMEOUT", "The job's time limit ran out while its outputs' checks were measured");
    const measures = log.measures();
    if (done.exitCode !== 0) {
      const why = measures.errors.at(-1) ?? `ffmpeg exited ${done.exitCode ?? done.signal}`;
      return {
        measures: { ...measures, integratedLufs: null, truePeakDbtp: null, psnr: null, ssim: null },
        failure: `ffmpeg could not read it through: ${why}`,
        report: null,
      };
    }
    return { measures, failure: null, report: checks.quality ? frames.report(fps) : null };
  } finally {
    ctx.canceled.removeEventListener("abort", proc.cancel);
  }
}

/** The first video stream's packets, counted by ffprobe (a demux, no decode); null when it could not. */
export async function countVideoPackets(ctx: PassContext, name: string): Promise<number | null> {
  const options = [
    "-count_packets",
    "-select_streams",
    "v:0",
    "-show_entries",
    "stream=nb_read_packets",
    "-of",
    "json",
  ];
  const stdout = await sandboxedFfprobe(ctx.folder, ctx.settings, options, ctx.folder.visiblePath(name)!);
  try {
    const streams = (JSON.parse(stdout ?? "") as { streams?: { nb_read_packets?: string }[] }).streams;
    const n = Number(streams?.[0]?.nb_read_packets);
    return Number.isInteger(n) ? n : null;
  } catch {
    return null;
  }
}
