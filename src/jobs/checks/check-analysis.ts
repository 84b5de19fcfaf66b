import type { OutputChecks } from "./output-checks.ts";

/*
 * The one ffmpeg pass that measures what an output's probe cannot: a full decode (every decoder error
 * counted), the first audio stream's loudness (ebur128) and the first video stream's PSNR and SSIM
 * against an input's. ffmpeg decodes each input stream once and hands its frames to every consumer,
 * so asking for several costs one decode of the output. Pure: the runner runs it sandboxed
 * (container/src/verify-output.ts) and gives its log back to `readAnalysis`.
 */

/** What the pass measured; null where it was not asked for or ffmpeg did not say. */
export type AnalysisMeasures = {
  /** Decoder and demuxer errors, in order (at most MAX_KEPT_ERRORS of them kept), and how many in all. */
  errors: string[];
  errorCount: number;
  integratedLufs: number | null;
  truePeakDbtp: number | null;
  psnr: number | null;
  ssim: number | null;
};

export const MAX_KEPT_ERRORS = 5;
const MAX_ERROR_CHARS = 300;

/** Whether `checks` need the pass at all (the others read the probe, the file's bytes or a packet count). */
export function needsAnalysis(checks: OutputChecks): boolean {
  return checks.fullDecode === true || checks.loudness !== undefined || checks.quality !== undefined;
}

/**
 * ffmpeg's arguments (after the binary) for the pass over `outputPath`, `referencePath` being the
 * quality check's input (null without one); `inputOptions` are the safety options each input gets
 * (src/jobs/runner-request/command-line.ts). The graph's outputs go to the null muxer.
 */
export function analysisArguments(
  checks: OutputChecks,
  outputPath: string,
  referencePath: string | null,
  inputOptions: (path: string) => string[],
): string[] {
  const graph: string[] = [];
  const maps: string[] = [];
  if (checks.quality && referencePath) {
    // Both start at 0 and are compared frame by frame at the output's size in 4:2:0, the reference
    // scaled to it: what the encode lost, not what a wanted downscale dropped. At the reference's size
    // in 4:4:4 the pass took 5x as long (docs/benchmarks.md, "What a quality report costs").
    graph.push(
      "[0:v:0]setpts=PTS-STARTPTS[d0]",
      "[1:v:0]setpts=PTS-STARTPTS[r0]",
      "[r0][d0]scale2ref=flags=bicubic[r1][d1]",
      "[d1]format=yuv420p,split[ds][dp]",
      "[r1]format=yuv420p,split[rs][rp]",
      // Each frame's value on stdout (quality-report.ts reads them as they come); the means in the log.
      "[ds][rs]ssim=stats_file=-[qs]",
      "[dp][rp]psnr=stats_file=-[qp]",
    );
    maps.push("-map", "[qs]", "-map", "[qp]");
  }
  if (checks.loudness) {
    // Per-frame lines at verbose: only the summary is logged at info.
    graph.push("[0:a:0]ebur128=peak=true:framelog=verbose[lu]");
    maps.push("-map", "[lu]");
  }
  // Every video and audio stream decoded to the end (subtitles have no null encoder: they are read).
  if (checks.fullDecode) maps.push("-map", "0:v?", "-map", "0:a?");
  return [
    "-hide_banner",
    "-nostdin",
    "-nostats",
    "-loglevel",
    "level+info",
    ...inputOptions(outputPath),
    "-i",
    outputPath,
    ...(checks.quality && referencePath ? [...inputOptions(referencePath), "-i", referencePath] : []),
    ...(graph.length ? ["-filter_complex", graph.join(";")] : []),
    ...maps,
    "-f",
    "null",
    "-",
  ];
}

/** An error the pass counts (`level+info` prefixes each line with its level). */
const ERROR_LINE = /\[(error|fatal|panic)\]/;

/**
 * The pass's measures from the tail of its log (stderr, the last bytes kept: the summaries come last;
 * a file with more errors than the tail holds has at least as many as it shows).
 */
export function readAnalysis(logTail: string): AnalysisMeasures {
  const errorLines = logTail.split("\n").filter((line) => ERROR_LINE.test(line));
  const last = (re: RegExp) => {
    const all = [...logTail.matchAll(re)];
    const v = all.length ? Number(all[all.length - 1][1]) : Number.NaN;
    return Number.isFinite(v) ? v : null;
  };
  const summary = logTail.lastIndexOf("Summary:");
  const loud = summary >= 0 ? logTail.slice(summary) : "";
  const inLoudness = (re: RegExp) => {
    const m = re.exec(loud);
    if (!m) return null;
    // ebur128 writes -inf for silence: as low as it measures.
    return m[1] === "-inf" ? -120 : Number.isFinite(Number(m[1])) ? Number(m[1]) : null;
  };
  return {
    errors: errorLines.slice(0, MAX_KEPT_ERRORS).map((line) => line.slice(0, MAX_ERROR_CHARS)),
    errorCount: errorLines.length,
    integratedLufs: inLoudness(/\bI:\s+(-inf|-?[\d.]+) LUFS/),
    truePeakDbtp: inLoudness(/\bPeak:\s+(-inf|-?[\d.]+) dBFS/),
    psnr: last(/PSNR .*?average:(inf|[\d.]+)/g) ?? (/PSNR .*?average:inf/.test(logTail) ? 100 : null),
    ssim: last(/SSIM .*?All:([\d.]+)/g),
  };
}
