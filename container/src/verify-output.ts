import { availableParallelism } from "node:os";
import { join } from "node:path";
import {
  analysisArguments,
  needsAnalysis,
  readAnalysis,
  type AnalysisMeasures,
} from "../../src/jobs/checks/check-analysis.ts";
import {
  evaluateChecks,
  firstVideoFrameRate,
  inputsNamedByChecks,
  mediaDurationSeconds,
} from "../../src/jobs/checks/evaluate-checks.ts";
import { createFrameStats, type QualityReport } from "../../src/jobs/checks/quality-report.ts";
import type { CheckResult, OutputChecks } from "../../src/jobs/checks/output-checks.ts";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import type { RunnerOutcome, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import { ended } from "./job-ended.ts";
import type { RunResult } from "./run-command.ts";
import type { BusyClock } from "./busy-clock.ts";
import { capabilities } from "./capabilities.ts";
import { isolatedCommand } from "./isolation.ts";
import type { JobFolder } from "./job-folder.ts";
import { indexBeforeMedia } from "./mp4-box-order.ts";
import type { OpenedFile } from "./output-file.ts";
import { PROBE_LIMITS, sandboxedFfprobe, type ProbeJson, type Prober } from "./probe.ts";
import { runProcess } from "./run-process.ts";
import type { RunnerSettings } from "./settings.ts";
import { killUidProcesses } from "./uid-reaper.ts";

/** The analysis pass's log kept (its tail): the summaries are its last lines. */
const ANALYSIS_LOG_BYTES = 256 * 1024;

/** Measures an output against its declared checks (src/jobs/checks/): the results, in the checks' order. */
export type OutputVerifier = (
  output: RunnerOutput,
  file: OpenedFile,
  probe: ProbeJson | null,
) => Promise<CheckResult[]>;

type VerifyContext = {
  folder: JobFolder;
  settings: RunnerSettings;
  prober: Prober;
  deadline: number;
  canceled: AbortSignal;
  /** The analysis pass is billed: its wall time is timed by the job's billed clock. */
  billed: BusyClock;
};

/**
 * Each check reads what it needs, side by side: the output's probe (already made for its metadata), the
 * named inputs' durations, one sandboxed ffmpeg pass for decode, loudness and quality
 * (check-analysis.ts), a packet count for the frame count, the box order for faststart. Every process
 * runs in the job's sandbox under its input options and deadline, as the job's own probes do.
 */
export function createOutputVerifier(ctx: VerifyContext): OutputVerifier {
  const inputDurations = new Map<string, Promise<number | null>>();
  const durationOf = (name: string) => {
    if (!inputDurations.has(name)) inputDurations.set(name, ctx.prober(name).then(mediaDurationSeconds));
    return inputDurations.get(name)!;
  };
  return async (output, file, probe) => {
    const checks = output.checks;
    if (!checks || Object.keys(checks).length === 0) return [];
    const named = inputsNamedByChecks(checks);
    const [durations, analysis, videoPackets, indexFirst, vmafAvailable] = await Promise.all([
      Promise.all(named.map(async (n) => [n, await durationOf(n)] as const)),
      needsAnalysis(checks)
        ? ctx.billed.time(() => analyze(ctx, output.name, checks, firstVideoFrameRate(probe)))
        : { measures: null, failure: null, report: null },
      checks.frameCount ? countVideoPackets(ctx, output.name) : null,
      checks.faststart ? indexBeforeMedia(file.handle, file.size).catch(() => null) : null,
      checks.quality?.minVmaf !== undefined
        ? capabilities().then((c) => c.filters.some((f) => f.name === "libvmaf"))
        : false,
    ]);
    return evaluateChecks(checks, {
      probe,
      size: file.size,
      inputDurations: Object.fromEntries(durations),
      analysis: analysis.measures,
      analysisFailure: analysis.failure,
      qualityReport: analysis.report,
      videoPackets,
      indexFirst,
      vmafAvailable,
    });
  };
}

/** The analysis pass over an output, sandboxed as the job, within the job's deadline; a cancel stops it. */
async function analyze(
  ctx: VerifyContext,
  name: string,
  checks: OutputChecks,
  fps: number | null,
): Promise<{ measures: AnalysisMeasures | null; failure: string | null; report: QualityReport | null }> {
  const { folder, settings } = ctx;
  const outputPath = folder.visiblePath(name)!;
  const referencePath = checks.quality ? (folder.visiblePath(checks.quality.against) ?? null) : null;
  const argv = analysisArguments(checks, outputPath, referencePath, inputSafetyOptions);
  const timeoutMs = Math.max(1, ctx.deadline - Date.now());
  const limits = {
    ...PROBE_LIMITS,
    cpuSeconds: Math.ceil(timeoutMs / 1000) * availableParallelism(),
    addressSpaceBytes: settings.maxMemoryBytes,
  };
  const command = isolatedCommand(settings, folder, "ffmpeg", argv, limits);
  const frames = createFrameStats();
  const proc = runProcess({
    file: command.file,
    args: command.args,
    cwd: join(folder.root, "work"),
    env: command.env,
    timeoutMs,
    maxStdoutBytes: 4096,
    maxStderrBytes: ANALYSIS_LOG_BYTES,
    afterExit: folder.uid === null ? undefined : () => killUidProcesses(folder.uid!),
    onStdoutText: (text) => frames.push(text),
  });
  ctx.canceled.addEventListener("abort", proc.cancel, { once: true });
  try {
    const done = await proc.done;
    const measures = readAnalysis(done.stderrTail);
    if (done.timedOut) return { measures: null, failure: "the job's time ran out while it was measured", report: null };
    if (done.exitCode !== 0)
      return {
        measures,
        failure: `ffmpeg could not read it through: ${measures.errors.at(-1) ?? `exit ${done.exitCode}`}`,
        report: null,
      };
    return { measures, failure: null, report: checks.quality ? frames.report(fps) : null };
  } finally {
    ctx.canceled.removeEventListener("abort", proc.cancel);
  }
}

/** The first video stream's packets, counted by ffprobe (a demux, no decode); null when it could not. */
async function countVideoPackets(ctx: VerifyContext, name: string): Promise<number | null> {
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
    const n = Number(
      (JSON.parse(stdout ?? "") as { streams?: { nb_read_packets?: string }[] }).streams?.[0]?.nb_read_packets,
    );
    return Number.isInteger(n) ? n : null;
  } catch {
    return null;
  }
}

/** How much of the failures the job's message lists (the results themselves are all kept on the job). */
const MAX_MESSAGE_FAILURES = 4;

/**
 * Fails the job when any output missed a check (OUTPUT_CHECK_FAILED): its message names each miss, and
 * `checks` keeps every output's results, so the job shows what was measured beside what was wanted.
 */
export function throwOnFailedChecks(outputs: RunnerOutcome["outputs"], ran: RunResult): void {
  const misses = outputs.flatMap((o) => (o.checks ?? []).filter((c) => !c.passed).map((c) => ({ output: o.name, c })));
  if (misses.length === 0) return;
  const listed = misses.slice(0, MAX_MESSAGE_FAILURES).map(({ output, c }) => `"${output}" ${c.check}: ${c.message}`);
  const more = misses.length > MAX_MESSAGE_FAILURES ? ` (and ${misses.length - MAX_MESSAGE_FAILURES} more)` : "";
  throw ended("OUTPUT_CHECK_FAILED", `${misses.length} output check(s) failed: ${listed.join("; ")}${more}`, {
    ...ran,
    checks: Object.fromEntries(outputs.map((o) => [o.name, o.checks ?? []])),
  });
}
