import { needsAnalysis } from "../../src/jobs/checks/check-analysis.ts";
import { evaluateChecks } from "../../src/jobs/checks/evaluate-checks.ts";
import { firstVideoFrameRate, inputsNamedByChecks, mediaDurationSeconds } from "../../src/jobs/checks/check-facts.ts";
import type { CheckResult } from "../../src/jobs/checks/output-checks.ts";
import type { RunnerOutcome, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import { readVideoPacketTimes, runAnalysisPass, type PassContext, type PassResult } from "./analysis-pass.ts";
import { continuityOf } from "../../src/jobs/checks/frame-continuity.ts";
import type { BusyClock } from "./busy-clock.ts";
import { capabilities } from "./capabilities.ts";
import { ended } from "./job-ended.ts";
import { indexBeforeMedia } from "./mp4-box-order.ts";
import type { OpenedFile } from "./output-file.ts";
import type { ProbeJson, Prober } from "./probe.ts";
import type { RunResult } from "./run-command.ts";
import { createSemaphore } from "./semaphore.ts";

/** Measures an output against its declared checks (src/jobs/checks/): the results, in the checks' order. */
export type OutputVerifier = (
  output: RunnerOutput,
  file: OpenedFile,
  probe: ProbeJson | null,
) => Promise<CheckResult[]>;

type VerifyContext = PassContext & {
  prober: Prober;
  /** What measuring runs is billed: its wall time is timed by the job's billed clock. */
  billed: BusyClock;
};

/**
 * Each check reads what it needs: the output's probe (already made for its metadata), the named
 * inputs' durations, one sandboxed ffmpeg pass for decode, loudness and quality (analysis-pass.ts), a
 * packet count for the frame count, the box order for faststart. The processes a job's checks run go
 * one at a time: a job of 16 outputs measures them in turn, within its own CPU and memory, not 16 times
 * its limits at once (their time is billed as it passes, so the job pays for what it asked).
 */
export function createOutputVerifier(ctx: VerifyContext): OutputVerifier {
  const inputDurations = new Map<string, Promise<number | null>>();
  const durationOf = (name: string) => {
    if (!inputDurations.has(name)) inputDurations.set(name, ctx.prober(name).then(mediaDurationSeconds));
    return inputDurations.get(name)!;
  };
  const oneAtATime = createSemaphore(1);
  const measured = async <T>(work: () => Promise<T>): Promise<T> => {
    const release = await oneAtATime.acquire();
    try {
      return await ctx.billed.time(work);
    } finally {
      release();
    }
  };
  const NOT_RUN: PassResult = { measures: null, failure: null, report: null };
  return async (output, file, probe) => {
    const checks = output.checks;
    if (!checks || Object.keys(checks).length === 0) return [];
    const [durations, analysis, packetTimes, indexFirst, vmafAvailable] = await Promise.all([
      Promise.all(inputsNamedByChecks(checks).map(async (n) => [n, await durationOf(n)] as const)),
      needsAnalysis(checks)
        ? measured(() => runAnalysisPass(ctx, output.name, checks, firstVideoFrameRate(probe)))
        : NOT_RUN,
      checks.frameCount || checks.continuity ? measured(() => readVideoPacketTimes(ctx, output.name)) : null,
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
      videoPackets: packetTimes?.length ?? null,
      continuity: checks.continuity && packetTimes ? continuityOf(packetTimes, checks.continuity.maxGapFrames) : null,
      indexFirst,
      vmafAvailable,
    });
  };
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
