import type { AnalysisMeasures } from "./analysis-log.ts";
import type { QualityReport } from "./quality-report.ts";
import type { Continuity } from "./frame-continuity.ts";
import type { CheckResult, OutputChecks } from "./output-checks.ts";

/**
 * An output's checks judged against what was measured of it: one result per declared check, in the
 * schema's order, each with what was wanted and what was measured (null: it could not be). Pure: the
 * runner gathers the facts (container/src/verify-output.ts).
 */

type Stream = Record<string, unknown>;
export type OutputFacts = {
  /** ffprobe's JSON of the output (`-show_format -show_streams`), or null when it read nothing. */
  probe: { format?: Record<string, unknown>; streams?: Stream[] } | null;
  size: number;
  /** The duration of each input a check names, from its probe (null: unknown). */
  inputDurations: Record<string, number | null>;
  /** The analysis pass's measures; null when it was not run, with `analysisFailure` when it failed. */
  analysis: AnalysisMeasures | null;
  analysisFailure: string | null;
  /** The quality check's frame-by-frame report against its input (null without one, or when no frame was compared). */
  qualityReport?: QualityReport | null;
  /** The first video stream's packet count (`frameCount`), null when not counted. */
  videoPackets: number | null;
  /** The first video stream's frame continuity (`continuity`), null when not measured. */
  continuity?: Continuity | null;
  /** Whether the index comes before the media (`faststart`): null when the file is not MP4/MOV boxes. */
  indexFirst: boolean | null;
  /** Whether the runner's ffmpeg can measure VMAF. */
  vmafAvailable: boolean;
};

/** The inputs a check names (a duration `asInput`, a quality `against`): each must be one of the job's. */
export function inputsNamedByChecks(checks: OutputChecks): string[] {
  return [checks.durationSeconds?.asInput, checks.quality?.against].filter((n): n is string => n !== undefined);
}

const num = (v: unknown): number | null => {
  const n = typeof v === "number" ? v : Number(v);
  return v === undefined || v === null || v === "N/A" || v === "" || !Number.isFinite(n) ? null : n;
};
const ratio = (v: unknown): number | null => {
  const m = /^(\d+)\/(\d+)$/.exec(String(v ?? ""));
  return m && Number(m[2]) !== 0 ? Number(m[1]) / Number(m[2]) : null;
};
/** The first video stream's average frame rate (its nominal one where that is unknown), from a probe. */
export function firstVideoFrameRate(probe: OutputFacts["probe"]): number | null {
  const video = probe?.streams?.find((s) => s.codec_type === "video");
  return ratio(video?.avg_frame_rate) ?? ratio(video?.r_frame_rate);
}
const round = (n: number | null, places = 3) => (n === null ? null : Math.round(n * 10 ** places) / 10 ** places);
const within = (measured: number | null, wanted: number, tolerance: number) =>
  measured !== null && Math.abs(measured - wanted) <= tolerance + 1e-9;
const inBounds = (v: number | null, b: { min?: number; max?: number }) =>
  v !== null && (b.min === undefined || v >= b.min) && (b.max === undefined || v <= b.max);
const boundsText = (b: { min?: number; max?: number }, unit: string) =>
  [b.min !== undefined ? `at least ${b.min}${unit}` : "", b.max !== undefined ? `at most ${b.max}${unit}` : ""]
    .filter(Boolean)
    .join(" and ");

function result(check: string, passed: boolean, wanted: unknown, measured: unknown, message: string): CheckResult {
  return { check, passed, wanted, measured, message };
}

/**
 * How long a file's media lasts: its longest video or audio stream where the container says (MP4 does),
 * else the container's duration (which a subtitle or data track may stretch). Inputs are measured the same way.
 */
export function mediaDurationSeconds(probe: OutputFacts["probe"]): number | null {
  const streams = (probe?.streams ?? []).filter((s) => s.codec_type === "video" || s.codec_type === "audio");
  const lengths = streams.map((s) => num(s.duration)).filter((d): d is number => d !== null);
  return lengths.length ? Math.max(...lengths) : num(probe?.format?.duration);
}

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
  if (checks.continuity) {
    const c = f.continuity ?? null;
    const message = !video
      ? videoMissing
      : c === null
        ? "not measured: ffprobe could not read its frames' timestamps"
        : c.gaps === 0 && c.repeats === 0
          ? `${c.frames} frames, each ${c.usualIntervalMs} ms after the last`
          : `${c.gaps} gap(s)${c.largestGap ? ` (the longest ${c.largestGap.ms} ms at ${c.largestGap.atSeconds} s)` : ""} and ${c.repeats} repeated timestamp(s) in ${c.frames} frames of ${c.usualIntervalMs} ms`;
    push("continuity", c !== null && c.gaps === 0 && c.repeats === 0, checks.continuity, c, message);
  }
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
  if (checks.loudness) {
    const l = checks.loudness;
    const measured = {
      integratedLufs: f.analysis?.integratedLufs ?? null,
      truePeakDbtp: f.analysis?.truePeakDbtp ?? null,
    };
    const loudOk = within(measured.integratedLufs, l.integratedLufs, l.toleranceLu);
    const peakOk =
      l.truePeakMaxDbtp === undefined || (measured.truePeakDbtp !== null && measured.truePeakDbtp <= l.truePeakMaxDbtp);
    // A pass that failed measured nothing, whatever numbers it printed.
    push(
      "loudness",
      f.analysisFailure === null && loudOk && peakOk,
      l,
      measured,
      !audio
        ? "it has no audio stream"
        : measured.integratedLufs === null || f.analysisFailure !== null
          ? `not measured: ${f.analysisFailure ?? "ffmpeg gave no loudness"}`
          : `${measured.integratedLufs} LUFS, true peak ${measured.truePeakDbtp} dBTP; wanted ${l.integratedLufs} ± ${l.toleranceLu} LUFS${l.truePeakMaxDbtp !== undefined ? `, peak at most ${l.truePeakMaxDbtp} dBTP` : ""}`,
    );
  }
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
  if (checks.fullDecode) {
    const a = f.analysis;
    const passed = a !== null && a.errorCount === 0 && f.analysisFailure === null;
    const message =
      a === null || f.analysisFailure
        ? `did not decode: ${f.analysisFailure ?? "not measured"}`
        : a.errorCount
          ? `${a.errorCount} decoding error(s), first: ${a.errors[0] ?? ""}`
          : "decodes to the end without an error";
    push("fullDecode", passed, true, a ? { errors: a.errorCount, first: a.errors } : null, message);
  }
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

function avSyncResult(
  a: NonNullable<OutputChecks["avSync"]>,
  video: Stream | null,
  audio: Stream | null,
  f: OutputFacts,
): CheckResult {
  // Nothing to keep in step: `streams` is the check that asks for both.
  if (!video || !audio)
    return result("avSync", true, a, null, `it has no ${video ? "audio" : "video"} stream to keep in step`);
  const ms = (v: unknown) => (num(v) === null ? null : num(v)! * 1000);
  const containerEnd = num(f.probe?.format?.duration);
  const startOf = (s: Stream) => ms(s.start_time) ?? 0;
  // A stream's own duration where the container keeps one (MP4, and MKV's tags do not: then the container's).
  const endOf = (s: Stream) => {
    const d = ms(s.duration) ?? (containerEnd === null ? null : containerEnd * 1000 - startOf(s));
    return d === null ? null : startOf(s) + d;
  };
  const startDiff = round(Math.abs(startOf(audio) - startOf(video)), 1);
  const ve = endOf(video);
  const ae = endOf(audio);
  const endDiff = ve === null || ae === null ? null : round(Math.abs(ae - ve), 1);
  const startOk = a.maxStartDiffMs === undefined || (startDiff !== null && startDiff <= a.maxStartDiffMs);
  const endOk = a.maxLengthDiffMs === undefined || (endDiff !== null && endDiff <= a.maxLengthDiffMs);
  return result(
    "avSync",
    startOk && endOk,
    a,
    { startDiffMs: startDiff, endDiffMs: endDiff },
    `audio starts ${startDiff} ms and ends ${endDiff ?? "an unknown time"} ms from the video`,
  );
}

function qualityResult(q: NonNullable<OutputChecks["quality"]>, video: Stream | null, f: OutputFacts): CheckResult {
  const a = f.analysis;
  const report = f.qualityReport ?? null;
  // The frame-by-frame means where frames were compared (the log's summary otherwise), and the report beside them.
  const measured = {
    psnr: report?.psnr.mean ?? round(a?.psnr ?? null),
    ssim: report?.ssim.mean ?? round(a?.ssim ?? null, 5),
    vmaf: null as number | null,
    report,
  };
  if (!video) return result("quality", false, q, measured, "it has no video stream");
  const failures: string[] = f.analysisFailure !== null ? [`not measured: ${f.analysisFailure}`] : [];
  if (q.minPsnr !== undefined && !(measured.psnr !== null && measured.psnr >= q.minPsnr))
    failures.push(`PSNR ${measured.psnr ?? "not measured"} dB under ${q.minPsnr}`);
  if (q.minSsim !== undefined && !(measured.ssim !== null && measured.ssim >= q.minSsim))
    failures.push(`SSIM ${measured.ssim ?? "not measured"} under ${q.minSsim}`);
  if (q.minVmaf !== undefined)
    failures.push(
      f.vmafAvailable
        ? "VMAF not measured"
        : "VMAF not measured: this runner's ffmpeg has no libvmaf (GET /v1/capabilities)",
    );
  const detail = report
    ? `; 5th percentile SSIM ${report.ssim.p5}, worst second at ${report.worstSecond.startSeconds} s (SSIM ${report.worstSecond.ssim})`
    : "";
  const summary = failures.length
    ? failures.join("; ")
    : `PSNR ${measured.psnr} dB, SSIM ${measured.ssim} against "${q.against}"`;
  return result("quality", failures.length === 0, q, measured, `${summary}${detail}`);
}
