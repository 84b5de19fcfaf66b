import {
  boundsText,
  inBounds,
  mediaDurationSeconds,
  num,
  ratio,
  result,
  round,
  within,
  type OutputFacts,
} from "./check-facts.ts";
import { avSyncResult, continuityResult, fullDecodeResult, loudnessResult, qualityResult } from "./measured-results.ts";
import type { CheckResult, OutputChecks } from "./output-checks.ts";

/*
 * An output's checks judged against what was measured of it: one result per declared check, in the
 * schema's order, each with what was wanted and what was measured (null: it could not be). Pure: the
 * runner gathers the facts (container/src/verify-output.ts).
 */

/** ffprobe reads it as media with at least one stream (every output's check when it declares none). */
function readableResult(f: OutputFacts): CheckResult {
  const streams = f.probe?.streams?.length ?? 0;
  const format = typeof f.probe?.format?.format_name === "string" ? f.probe.format.format_name : null;
  const passed = format !== null && streams > 0;
  return result(
    "readable",
    passed,
    { streams: "at least 1" },
    { format, streams },
    passed
      ? `read as ${format} with ${streams} stream(s)`
      : "ffprobe reads no media stream in it (cut short, or not the format its name says?)",
  );
}

export function evaluateChecks(checks: OutputChecks, f: OutputFacts): CheckResult[] {
  const streams = f.probe?.streams ?? [];
  const firstOf = (type: string) => streams.find((s) => s.codec_type === type) ?? null;
  const video = firstOf("video");
  const audio = firstOf("audio");
  const out: CheckResult[] = [];
  const push = (check: keyof OutputChecks, passed: boolean, wanted: unknown, measured: unknown, message: string) =>
    out.push(result(check, passed, wanted, measured, message));
  const videoMissing = "it has no video stream";

  if (checks.readable) out.push(readableResult(f));
  if (checks.streams) {
    const present = [...new Set(streams.map((s) => String(s.codec_type)))];
    const missing = checks.streams.filter((t) => !present.includes(t));
    push(
      "streams",
      missing.length === 0,
      checks.streams,
      present,
      missing.length ? `no ${missing.join(", ")} stream` : `has ${checks.streams.join(", ")}`,
    );
  }
  if (checks.durationSeconds) {
    const d = checks.durationSeconds;
    const wanted = d.equals ?? f.inputDurations[d.asInput!] ?? null;
    const measured = round(mediaDurationSeconds(f.probe));
    const of = d.asInput ? ` (input "${d.asInput}")` : "";
    push(
      "durationSeconds",
      wanted !== null && within(measured, wanted, d.toleranceSeconds),
      { seconds: round(wanted), toleranceSeconds: d.toleranceSeconds, ...(d.asInput ? { asInput: d.asInput } : {}) },
      measured,
      wanted === null
        ? `input "${d.asInput}" has no known duration to compare with`
        : `lasts ${measured ?? "an unknown time"} s; wanted ${round(wanted)} ± ${d.toleranceSeconds} s${of}`,
    );
  }
  if (checks.frameRate) {
    const measured = round(ratio(video?.avg_frame_rate) ?? ratio(video?.r_frame_rate));
    push(
      "frameRate",
      within(measured, checks.frameRate.equals, checks.frameRate.tolerance),
      checks.frameRate,
      measured,
      video
        ? `${measured ?? "unknown"} fps; wanted ${checks.frameRate.equals} ± ${checks.frameRate.tolerance}`
        : videoMissing,
    );
  }
  if (checks.frameCount) {
    push(
      "frameCount",
      inBounds(f.videoPackets, checks.frameCount),
      checks.frameCount,
      f.videoPackets,
      video ? `${f.videoPackets ?? "unknown"} frames; wanted ${boundsText(checks.frameCount, "")}` : videoMissing,
    );
  }
  if (checks.continuity) out.push(continuityResult(checks.continuity, video, f));
  for (const side of ["width", "height"] as const) {
    const wanted = checks[side];
    if (wanted === undefined) continue;
    const measured = num(video?.[side]);
    push(side, measured === wanted, wanted, measured, video ? `${side} ${measured}; wanted ${wanted}` : videoMissing);
  }
  if (checks.pixelFormat) {
    const measured = typeof video?.pix_fmt === "string" ? video.pix_fmt : null;
    push(
      "pixelFormat",
      measured === checks.pixelFormat,
      checks.pixelFormat,
      measured,
      video ? `${measured ?? "unknown"}; wanted ${checks.pixelFormat}` : videoMissing,
    );
  }
  if (checks.color) {
    const tag = (key: string) => (typeof video?.[key] === "string" ? (video[key] as string) : null);
    const measured = {
      primaries: tag("color_primaries"),
      transfer: tag("color_transfer"),
      matrix: tag("color_space"),
      range: tag("color_range"),
    };
    const wrong = (Object.keys(checks.color) as (keyof typeof measured)[]).filter(
      (k) => checks.color![k] !== measured[k],
    );
    push(
      "color",
      video !== null && wrong.length === 0,
      checks.color,
      measured,
      !video
        ? videoMissing
        : wrong.length
          ? wrong.map((k) => `${k} ${measured[k] ?? "untagged"}, wanted ${checks.color![k]}`).join("; ")
          : "tags as wanted",
    );
  }
  if (checks.avSync) out.push(avSyncResult(checks.avSync, video, audio, f));
  if (checks.loudness) out.push(loudnessResult(checks.loudness, audio, f));
  if (checks.sizeBytes)
    push(
      "sizeBytes",
      inBounds(f.size, checks.sizeBytes),
      checks.sizeBytes,
      f.size,
      `${f.size} bytes; wanted ${boundsText(checks.sizeBytes, " bytes")}`,
    );
  if (checks.bitRate) {
    const measured = num(f.probe?.format?.bit_rate);
    push(
      "bitRate",
      inBounds(measured, checks.bitRate),
      checks.bitRate,
      measured,
      `${measured ?? "unknown"} b/s; wanted ${boundsText(checks.bitRate, " b/s")}`,
    );
  }
  if (checks.fullDecode) out.push(fullDecodeResult(f));
  if (checks.quality) out.push(qualityResult(checks.quality, video, f));
  if (checks.faststart)
    push(
      "faststart",
      f.indexFirst === true,
      true,
      f.indexFirst,
      f.indexFirst === null
        ? "not an MP4/MOV file whose boxes could be read"
        : f.indexFirst
          ? "moov before mdat"
          : "moov after mdat: it cannot play until fully downloaded",
    );
  return out;
}
