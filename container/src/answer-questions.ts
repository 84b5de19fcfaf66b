import { measureInSandbox, type PassContext } from "./analysis-pass.ts";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import type { MediaFacts } from "../../src/presets/media-facts.ts";
import {
  keyframeFromListing,
  keyframeListingOptions,
  LOUDNESS_LOG_OPTIONS,
  loudnessFromLog,
  loudnessPassArguments,
} from "../../src/presets/recipes/input-measures.ts";
import {
  keyframeKey,
  noAnswers,
  type InputAnswers,
  type InputQuestion,
} from "../../src/presets/recipes/input-questions.ts";

/** A measuring process on the job's inputs: its exit and what it printed (bounded). */
export type MeasureInput = (
  binary: "ffmpeg" | "ffprobe",
  argv: string[],
) => Promise<{ exitCode: number | null; stdout: string; stderr: string }>;

/**
 * A preset's questions about its inputs answered, one process at a time: a key frame by a demux of
 * the look-back before the time (ffprobe's packet listing, nothing decoded), a loudness by loudnorm's
 * first pass over the audio. A question whose process fails is left unanswered (the recipe plans without
 * it). The measuring's time is billed with the job's (it is the first of a two-pass job's passes): measureInJob.
 */
export async function answerQuestions(
  questions: InputQuestion[],
  inputs: { name: string; facts: MediaFacts; path: string }[],
  measure: MeasureInput,
): Promise<InputAnswers> {
  const answers = noAnswers();
  for (const q of questions) {
    const input = inputs.find((i) => i.name === q.input);
    if (!input) continue;
    if (q.kind === "keyframe") {
      const absolute = input.facts.startSeconds + q.atSeconds;
      const argv = [
        "-v",
        "error",
        ...inputSafetyOptions(input.path),
        ...keyframeListingOptions(absolute, input.facts.startSeconds),
        input.path,
      ];
      const done = await measure("ffprobe", argv);
      const key = done.exitCode === 0 ? keyframeFromListing(done.stdout, absolute, input.facts.startSeconds) : null;
      answers.keyframes.set(keyframeKey(q.input, q.atSeconds), key);
    } else {
      const argv = [
        ...LOUDNESS_LOG_OPTIONS,
        ...inputSafetyOptions(input.path),
        "-i",
        input.path,
        ...loudnessPassArguments(q.target),
      ];
      const done = await measure("ffmpeg", argv);
      answers.loudness.set(q.input, done.exitCode === 0 ? loudnessFromLog(done.stderr) : null);
    }
  }
  return answers;
}

/** What a measuring process keeps of its output: a listing of 30 s of packets, loudnorm's summary at the log's end. */
const MEASURE_KEPT_CHARS = 1024 * 1024;

/**
 * MeasureInput as the job's own process: its sandbox, CPU, deadline and cancel (measureInSandbox). Each
 * process's time is added to `measured` however it ends (a deadline or a cancel too): the job is billed it.
 */
export function measureInJob(ctx: PassContext, measured: { ms: number }): MeasureInput {
  return async (binary, argv) => {
    let stdout = "";
    let stderr = "";
    const started = Date.now();
    const done = await measureInSandbox(
      ctx,
      binary,
      argv,
      {
        onStdoutText: (text) => {
          if (stdout.length < MEASURE_KEPT_CHARS) stdout += text;
        },
        onStderrText: (text) => {
          stderr = (stderr + text).slice(-MEASURE_KEPT_CHARS);
        },
      },
      "its preset measured its inputs",
    ).finally(() => {
      measured.ms += Date.now() - started;
    });
    return { exitCode: done.exitCode, stdout, stderr };
  };
}
