import { num, result, round, within, type OutputFacts, type Stream } from "./check-facts.ts";
import type { CheckResult, OutputChecks } from "./output-checks.ts";

/*
 * The checks judged on what the runner measured beyond the probe (container/src/verify-output.ts): the
 * analysis pass (full decode, loudness, quality), the packets' timestamps (continuity), and the probe's
 * start times and lengths (A/V sync). A pass that failed measured nothing: its checks miss, saying why.
 */

export function loudnessResult(
  l: NonNullable<OutputChecks["loudness"]>,
  audio: Stream | null,
  f: OutputFacts,
): CheckResult {
  const measured = {
    integratedLufs: f.analysis?.integratedLufs ?? null,
    truePeakDbtp: f.analysis?.truePeakDbtp ?? null,
  };
  const loudOk = within(measured.integratedLufs, l.integratedLufs, l.toleranceLu);
  const peakOk =
    l.truePeakMaxDbtp === undefined || (measured.truePeakDbtp !== null && measured.truePeakDbtp <= l.truePeakMaxDbtp);
  // A pass that failed measured nothing, whatever numbers it printed.
  return result(
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

export function continuityResult(
  wanted: NonNullable<OutputChecks["continuity"]>,
  video: Stream | null,
  f: OutputFacts,
): CheckResult {
  const c = f.continuity ?? null;
  const message = !video
    ? "it has no video stream"
    : c === null
      ? "not measured: ffprobe could not read its frames' timestamps"
      : c.gaps === 0 && c.repeats === 0
        ? `${c.frames} frames, each ${c.usualIntervalMs} ms after the last`
        : `${c.gaps} gap(s)${c.largestGap ? ` (the longest ${c.largestGap.ms} ms at ${c.largestGap.atSeconds} s)` : ""} and ${c.repeats} repeated timestamp(s) in ${c.frames} frames of ${c.usualIntervalMs} ms`;
  return result("continuity", c !== null && c.gaps === 0 && c.repeats === 0, wanted, c, message);
}

export function fullDecodeResult(f: OutputFacts): CheckResult {
  const a = f.analysis;
  const passed = a !== null && a.errorCount === 0 && f.analysisFailure === null;
  const message =
    a === null || f.analysisFailure
      ? `did not decode: ${f.analysisFailure ?? "not measured"}`
      : a.errorCount
        ? `${a.errorCount} decoding error(s), first: ${a.errors[0] ?? ""}`
        : "decodes to the end without an error";
  return result("fullDecode", passed, true, a ? { errors: a.errorCount, first: a.errors } : null, message);
}

export function avSyncResult(
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
  const offset = startOf(audio) - startOf(video);
  const startDiff = round(Math.abs(offset - (a.startOffsetMs ?? 0)), 1);
  const ve = endOf(video);
  const ae = endOf(audio);
  const endDiff = ve === null || ae === null ? null : round(Math.abs(ae - ve), 1);
  const startOk = a.maxStartDiffMs === undefined || (startDiff !== null && startDiff <= a.maxStartDiffMs);
  const endOk = a.maxLengthDiffMs === undefined || (endDiff !== null && endDiff <= a.maxLengthDiffMs);
  return result(
    "avSync",
    startOk && endOk,
    a,
    { startDiffMs: startDiff, endDiffMs: endDiff, startOffsetMs: round(offset, 1) },
    `audio starts ${startDiff} ms${a.startOffsetMs ? ` from ${a.startOffsetMs} ms` : ""} and ends ${endDiff ?? "an unknown time"} ms from the video`,
  );
}

export function qualityResult(
  q: NonNullable<OutputChecks["quality"]>,
  video: Stream | null,
  f: OutputFacts,
): CheckResult {
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
