import type { OutputChecks } from "./output-checks.ts";

/*
 * The one ffmpeg pass that measures what an output's probe cannot: a full decode (every decoder error
 * counted), the first audio stream's loudness (ebur128) and the first video stream's PSNR and SSIM
 * against an input's. ffmpeg decodes each input stream once and hands its frames to every consumer,
 * so asking for several costs one decode of the output. Pure: the runner runs it sandboxed
 * (container/src/verify-output.ts) and reads its log with analysis-log.ts.
 */

/**
 * How every measuring ffmpeg starts: errors only, each line with its level (ffmpeg prints a file's
 * metadata at info, and nothing of it may be read as a line of the log), no banner, stats or stdin.
 */
export const MEASURING_LOG_OPTIONS = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "level+error"];

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
      // Each frame's value on stdout (quality-report.ts reads them as they come): the report's means are the measures.
      "[ds][rs]ssim=stats_file=-[qs]",
      "[dp][rp]psnr=stats_file=-[qp]",
    );
    maps.push("-map", "[qs]", "-map", "[qp]");
  }
  if (checks.loudness) {
    // Its values on each frame, the two wanted keys printed to stdout (analysis-log.ts reads them).
    graph.push(
      "[0:a:0]ebur128=peak=true:metadata=1,ametadata=mode=print:key=lavfi.r128.I:file=-,ametadata=mode=print:key=lavfi.r128.true_peak:file=-[lu]",
    );
    maps.push("-map", "[lu]");
  }
  // Every video and audio stream decoded to the end (subtitles have no null encoder: they are read).
  if (checks.fullDecode) maps.push("-map", "0:v?", "-map", "0:a?");
  return [
    ...MEASURING_LOG_OPTIONS,
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
