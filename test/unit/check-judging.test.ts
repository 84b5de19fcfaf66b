import { describe, expect, it } from "vitest";
import { analysisArguments } from "../../src/jobs/checks/check-analysis.ts";
import { createErrorLog, createLoudnessLines } from "../../src/jobs/checks/analysis-log.ts";
import { checksToRun } from "../../src/jobs/checks/default-checks.ts";
import { evaluateChecks } from "../../src/jobs/checks/evaluate-checks.ts";
import { mediaDurationSeconds, type OutputFacts } from "../../src/jobs/checks/check-facts.ts";
import { outputChecksSchema } from "../../src/jobs/checks/output-checks.ts";
import { storedChecks } from "../../src/jobs/checks/stored-checks.ts";
import { createFrameStats } from "../../src/jobs/checks/quality-report.ts";
import { continuityOf } from "../../src/jobs/checks/frame-continuity.ts";

const facts = (over: Partial<OutputFacts> = {}): OutputFacts => ({
  probe: {
    format: { format_name: "mov,mp4,m4a,3gp,3g2,mj2", duration: "4.000000", bit_rate: "500000" },
    streams: [
      {
        codec_type: "video",
        width: 320,
        height: 240,
        avg_frame_rate: "0/0",
        r_frame_rate: "25/1",
        pix_fmt: "yuv420p",
        start_time: "0.000000",
        duration: "4.000000",
      },
      { codec_type: "audio", start_time: "0.021333", duration: "3.990000" },
    ],
  },
  size: 250_000,
  inputDurations: {},
  analysis: null,
  analysisFailure: null,
  videoPackets: null,
  indexFirst: null,
  vmafAvailable: false,
  ...over,
});

describe("output checks, judged", () => {
  it("say what was wanted and measured, and miss what could not be measured", () => {
    const checks = outputChecksSchema.parse({
      durationSeconds: { asInput: "in" },
      frameRate: { equals: 25 },
      color: { primaries: "bt709" },
      loudness: { integratedLufs: -23 },
      quality: { against: "in", minVmaf: 90 },
    });
    const results = evaluateChecks(
      checks,
      facts({ analysisFailure: "ffmpeg could not read it through: [error] boom" }),
    );
    expect(results.map((r) => [r.check, r.passed])).toEqual([
      ["durationSeconds", false],
      ["frameRate", true],
      ["color", false],
      ["loudness", false],
      ["quality", false],
    ]);
    expect(results[0].message).toBe('input "in" has no known duration to compare with');
    expect(results[1].measured).toBe(25);
    expect(results[2].message).toBe("primaries untagged, wanted bt709");
    expect(results[3].message).toBe("not measured: ffmpeg could not read it through: [error] boom");
    expect(results[4].message).toBe(
      "not measured: ffmpeg could not read it through: [error] boom; VMAF not measured: this runner's ffmpeg has no libvmaf (GET /v1/capabilities)",
    );
  });

  it("keep audio and video in step only where both exist; `streams` asks for both", () => {
    const videoOnly = facts();
    videoOnly.probe!.streams = videoOnly.probe!.streams!.slice(0, 1);
    const [streams, sync] = evaluateChecks({ avSync: { maxStartDiffMs: 10 }, streams: ["video", "audio"] }, videoOnly);
    expect(streams).toMatchObject({ check: "streams", passed: false, message: "no audio stream" });
    expect(sync).toMatchObject({ check: "avSync", passed: true });
    const [late] = evaluateChecks({ avSync: { maxStartDiffMs: 10 } }, facts());
    expect(late).toMatchObject({
      passed: false,
      measured: { startDiffMs: 21.3, endDiffMs: 11.3, startOffsetMs: 21.3 },
    });
    // Audio meant to start after the picture (a camera's, an edit's): measured from where it should start.
    const [meant] = evaluateChecks({ avSync: { startOffsetMs: 20, maxStartDiffMs: 2 } }, facts());
    expect(meant).toMatchObject({ passed: true, measured: { startDiffMs: 1.3, startOffsetMs: 21.3 } });
    const [early] = evaluateChecks({ avSync: { startOffsetMs: -20, maxStartDiffMs: 2 } }, facts());
    expect(early).toMatchObject({ passed: false, measured: { startDiffMs: 41.3 } });
  });

  it("measure a file's length by its longest audio or video stream, else its container's", () => {
    expect(mediaDurationSeconds(facts().probe)).toBe(4);
    expect(
      mediaDurationSeconds({
        format: { duration: "12.5" },
        streams: [{ codec_type: "video" }, { codec_type: "subtitle", duration: "30" }],
      }),
    ).toBe(12.5);
    expect(mediaDurationSeconds(null)).toBeNull();
  });
});

describe("checks that name an input", () => {
  it("refuse a prototype's key as the input's name, whatever the job's inputs", () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      for (const checks of [{ durationSeconds: { asInput: name } }, { quality: { against: name, minSsim: 0.9 } }]) {
        const parsed = outputChecksSchema.safeParse(checks);
        expect(parsed.success, `${name} in ${JSON.stringify(checks)}`).toBe(false);
      }
    }
    expect(outputChecksSchema.safeParse({ quality: { against: "source", minSsim: 0.9 } }).success).toBe(true);
  });
});

describe("the analysis pass", () => {
  it("counts the log's error lines and reads ebur128's values from its stdout, lines cut anywhere", () => {
    const log = [
      "[h264 @ 0x1f] [error] error while decoding MB 3 4",
      "[error] concealing 120 DC, 120 AC, 120 MV errors",
      "[warning] not an error",
    ].join("\n");
    const errors = createErrorLog();
    for (let i = 0; i < log.length; i += 5) errors.push(log.slice(i, i + 5));
    expect(errors.errors()).toEqual({ errors: log.split("\n").slice(0, 2), errorCount: 2 });
    const stdout = [
      "frame:0 pts:0 pts_time:0",
      "lavfi.r128.I=-70.000",
      "n:1 Y:0.9 U:0.9 V:0.9 All:0.9 (10)",
      "lavfi.r128.true_peak=0.100",
      "lavfi.r128.I=-21.800",
      "lavfi.r128.true_peak=0.236",
    ].join("\n");
    const loudness = createLoudnessLines();
    for (let i = 0; i < stdout.length; i += 3) loudness.push(stdout.slice(i, i + 3));
    expect(loudness.measures()).toEqual({ integratedLufs: -21.8, truePeakDbtp: -12.5 });
    const silence = createLoudnessLines();
    silence.push("lavfi.r128.I=-inf\nlavfi.r128.true_peak=0.000\n");
    expect(silence.measures()).toEqual({ integratedLufs: -120, truePeakDbtp: -120 });
  });

  it("takes nothing from a file's metadata, and no time over a hostile line", () => {
    // What attack passes put in tags: a value, and a tag name holding a newline, each starting a line of its own.
    const forged = [
      "[info]     title           : PSNR y:1 u:1 v:1 average:99.000000 min:1 max:1 [error] x",
      "[h264 @ 0x1] [info] [error] forged in a value",
      "lavfi.r128.I =-16.0",
      " lavfi.r128.I=-16.0",
      "lavfi.r128.I=-16.0 LUFS",
    ].join("\n");
    const errors = createErrorLog();
    errors.push(`${forged}\n`);
    expect(errors.errors()).toEqual({ errors: [], errorCount: 0 });
    const loudness = createLoudnessLines();
    loudness.push(`${forged}\n`);
    expect(loudness.measures()).toEqual({ integratedLufs: null, truePeakDbtp: null });
    const started = performance.now();
    const hostile = createErrorLog();
    hostile.push(`[h264 @ 0x1] ${"[h264 @ 0x1] ".repeat(60_000)}\n`);
    hostile.push("[error ".repeat(30_000));
    hostile.errors();
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("keeps an error line printable: control and reordering characters of a file's text are replaced", () => {
    const errors = createErrorLog();
    errors.push("[h264 @ 0x1] [error] bad \u009b31m red \u202e evil \u007f\n");
    expect(errors.errors().errors).toEqual(["[h264 @ 0x1] [error] bad \ufffd31m red \ufffd evil \ufffd"]);
  });

  it("asks only for what the checks need, the reference read under the same input options", () => {
    const opts = (p: string) => ["-format_whitelist", `for:${p}`];
    const decodeOnly = analysisArguments({ fullDecode: true }, "/out/o.mp4", null, opts);
    expect(decodeOnly).not.toContain("-filter_complex");
    expect(decodeOnly.slice(-9)).toEqual(["-i", "/out/o.mp4", "-map", "0:v?", "-map", "0:a?", "-f", "null", "-"]);
    const quality = analysisArguments({ quality: { against: "in", minSsim: 0.9 } }, "/out/o.mp4", "/in/in.mp4", opts);
    expect(quality).toEqual(expect.arrayContaining(["-format_whitelist", "for:/in/in.mp4", "-i", "/in/in.mp4"]));
    expect(quality[quality.indexOf("-filter_complex") + 1]).toMatch(/scale2ref.*ssim.*psnr/);
  });
});

describe("which checks an output gets", () => {
  it("its own, or readable where its name picks a self-describing format; none for raw data or directories", () => {
    expect(checksToRun({ fileName: "o.mp4" })).toEqual({ readable: true });
    expect(checksToRun({ fileName: "o.mp4", checks: {} })).toEqual({});
    expect(checksToRun({ fileName: "o.yuv" })).toBeUndefined();
    expect(checksToRun({ fileName: "o.sw" })).toBeUndefined();
    expect(checksToRun({ fileName: "o.bin" })).toBeUndefined();
    // A still the probe cannot read back (found by a _pipe demuxer it does not allow) gets none.
    expect(checksToRun({ fileName: "o.ppm" })).toBeUndefined();
    expect(checksToRun({ fileName: "o.png" })).toEqual({ readable: true });
    expect(checksToRun({ fileName: "index.m3u8", kind: "directory" })).toBeUndefined();
    expect(checksToRun({ fileName: "o.mkv", checks: { fullDecode: true } })).toEqual({ fullDecode: true });
  });

  it("keep every result in some form when all do not fit the job's row: the failures' details first", () => {
    const many = Array.from({ length: 16 }, (_, i) => ({
      check: `c${i}`,
      passed: i !== 7,
      wanted: { at: "x".repeat(100) },
      measured: { first: ["\ufffd".repeat(300)] },
      message: "\ufffd".repeat(300),
    }));
    const outputs = Object.fromEntries(Array.from({ length: 16 }, (_, k) => [`out${k}`, many]));
    const stored = JSON.parse(storedChecks(outputs, 48 * 1024)!);
    expect(Object.keys(stored)).toHaveLength(16);
    expect(stored.out3.map((r: { check: string; passed: boolean }) => [r.check, r.passed])).toEqual(
      many.map((r) => [r.check, r.passed]),
    );
    const missed = stored.out3.find((r: { passed: boolean }) => !r.passed);
    expect(missed.wanted).toEqual({ at: "x".repeat(100) });
    expect(missed.message).toHaveLength(200);
    // Every check of every output missed: names and verdicts only, which fit the share whatever they held.
    const allMissed = Object.fromEntries(
      Object.entries(outputs).map(([k, rs]) => [k, rs.map((r) => ({ ...r, passed: false }))]),
    );
    const bare = JSON.parse(storedChecks(allMissed, 48 * 1024)!);
    expect(bare.out15[7]).toMatchObject({ check: "c7", passed: false, measured: null });
    expect(storedChecks(outputs, 100)).toBeNull();
  });
});

describe("the quality report, frame by frame", () => {
  it("reads lines cut anywhere, and finds the mean, the 5th percentile and the worst second", () => {
    const stats = createFrameStats();
    const lines: string[] = [];
    for (let n = 1; n <= 50; n++) {
      // Second 1 (frames 26-50 at 25 fps) is worse; frame 30 the worst of all; frame 3 identical (PSNR inf).
      const ssim = n === 30 ? 0.5 : n > 25 ? 0.9 : 0.99;
      lines.push(`n:${n} Y:0.9 U:0.9 V:0.9 All:${ssim} (20.0)`);
      lines.push(
        `n:${n} mse_avg:1.00 mse_y:1.00 mse_u:1.00 mse_v:1.00 psnr_avg:${n === 3 ? "inf" : n > 25 ? "30.00" : "40.00"} psnr_y:40.00`,
      );
    }
    const text = `${lines.join("\n")}\n`;
    for (let i = 0; i < text.length; i += 7) stats.push(text.slice(i, i + 7));
    const report = stats.report(25)!;
    expect(report.frames).toBe(50);
    expect(report.ssim.min).toBe(0.5);
    expect(report.ssim.p5).toBe(0.9);
    expect(report.psnr.min).toBe(30);
    expect(report.worstSecond).toEqual({ startSeconds: 1, ssim: 0.884, psnr: 30 });
    expect(report.psnr.mean).toBe(Math.round(((24 * 40 + 100 + 25 * 30) / 50) * 100) / 100);
  });

  it("is null when no frame was compared, and ignores lines that are not the filters'", () => {
    const stats = createFrameStats();
    stats.push("n:1 garbage\nsomething else\n");
    expect(stats.report(null)).toBeNull();
  });
});

describe("frame continuity", () => {
  it("finds a dropped frame and a doubled one, wherever they are in the order read", () => {
    const frames = Array.from({ length: 100 }, (_, i) => i / 25);
    const clean = continuityOf(Float64Array.from(frames.reverse()), 1.5);
    expect(clean).toEqual({ frames: 100, usualIntervalMs: 40, gaps: 0, repeats: 0, largestGap: null });
    const holed = continuityOf(Float64Array.from([...frames.filter((_, i) => i !== 60), frames[10]]), 1.5);
    expect(holed).toMatchObject({ frames: 100, gaps: 1, repeats: 1, largestGap: { ms: 80, atSeconds: 1.52 } });
    expect(continuityOf(Float64Array.from([0]), 1.5)).toMatchObject({ frames: 1, gaps: 0, usualIntervalMs: null });
  });
});
