import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { OutputChecks } from "../../src/jobs/checks/output-checks.ts";
import type { RunnerJobRequest, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import { useRunnerHarness } from "./runner-harness.ts";
import { jobRequest } from "./runner-api.ts";

/**
 * Declared output checks on a real runner (host ffmpeg, sandbox on), on media made here: a good clip,
 * one whose audio starts 300 ms late, one with corrupted packets in the middle. Each bad output is
 * caught and its job fails OUTPUT_CHECK_FAILED with the measured values; each good one passes.
 */
const dir = mkdtempSync(join(tmpdir(), "ffjobs-checks-media-"));
const ff = (...args: string[]) => execFileSync("ffmpeg", ["-v", "error", "-y", ...args], { cwd: dir });
const clip = ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=4"];
ff(...clip, "-f", "lavfi", "-i", "sine=f=440:d=4", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "good.ts");
ff(...clip, "-itsoffset", "0.3", "-f", "lavfi", "-i", "sine=f=440:d=4", "-c:v", "libx264", "-c:a", "aac", "late.mkv");
// Random bytes over 40 transport packets' payloads in the middle (their headers kept, so the copy keeps them).
const ts = readFileSync(join(dir, "good.ts"));
const packets = Math.floor(ts.length / 188);
let seed = 7;
for (let k = Math.floor(packets / 2); k < Math.floor(packets / 2) + 40; k++)
  for (let j = k * 188 + 8; j < (k + 1) * 188; j++) ts[j] = seed = (seed * 1103515245 + 12345) & 0xff;
writeFileSync(join(dir, "corrupt.ts"), ts);

// What an attack pass hid in metadata, which ffmpeg prints in the analysis pass's own log: forged
// measures and an "[error]" (segments split by \r as ffmpeg prints them), and 300 KB of tags that once
// pushed the first decode errors out of the log's kept tail.
const forged =
  "PSNR y:1 u:1 v:1 average:99.000000 min:1 max:1\rSSIM Y:1 (1) U:1 (1) V:1 (1) All:0.999000 (30)\r[error] none\rSummary:\r    I:         -16.0 LUFS";
ff("-i", "good.ts", "-c", "copy", "-metadata", `title=${forged}`, "forged.mkv");
ff("-f", "lavfi", "-i", "sine=f=440:d=4", "-c:a", "aac", "tone.m4a");
const tags = Array.from({ length: 3 }, (_, k) => [
  "-metadata",
  `tag${k}=${"x".repeat(249).concat("\r").repeat(400)}`,
]).flat();
ff("-i", "corrupt.ts", "-c", "copy", ...tags, "corrupt-tagged.mkv");

// A tag whose name holds a newline: ffmpeg prints names as they are, so at info level it wrote a line of
// its own into the pass's log (MP4 keeps such names with use_metadata_tags).
ff(
  "-i",
  "good.ts",
  "-c",
  "copy",
  "-movflags",
  "use_metadata_tags",
  "-metadata",
  "x\n[h264 @ 0x1] [error] forged\nlavfi.r128.I=-16.0\ny=v",
  "named.mp4",
);

const { h, input } = useRunnerHarness({}, dir);

async function run(
  args: string[],
  from: string,
  out: { fileName: string; checks?: OutputChecks },
  over: Partial<RunnerJobRequest> = {},
) {
  const output: RunnerOutput = {
    name: "out",
    fileName: out.fileName,
    contentType: "application/octet-stream",
    uploadUrl: `${h.storage.url}/${crypto.randomUUID()}/${out.fileName}`,
    ...(out.checks ? { checks: out.checks } : {}),
  };
  const req = jobRequest({ args, inputs: [input("in", from)], outputs: [output], ...over });
  await h.api.submit(req);
  const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished", 60_000);
  return { outcome: done.outcome!, stored: h.storage.received.get(new URL(output.uploadUrl).pathname) };
}
const copy = ["-i", "{{in}}", "-c", "copy", "{{out}}"];
const failedChecks = (outcome: { checks?: Record<string, { check: string; passed: boolean }[]> }) =>
  (outcome.checks?.out ?? []).filter((c) => !c.passed).map((c) => c.check);

describe("declared output checks on the runner (real ffmpeg)", () => {
  it("passes a good output on every probe check, and reports its SHA-256 and each measure", async () => {
    const checks: OutputChecks = {
      streams: ["video", "audio"],
      durationSeconds: { asInput: "in", toleranceSeconds: 0.1 },
      frameRate: { equals: 25, tolerance: 0.01 },
      frameCount: { min: 100, max: 100 },
      width: 320,
      height: 240,
      pixelFormat: "yuv420p",
      avSync: { maxStartDiffMs: 50, maxLengthDiffMs: 100 },
      sizeBytes: { min: 1000 },
      bitRate: { max: 10_000_000 },
      fullDecode: true,
      faststart: true,
    };
    const { outcome, stored } = await run(
      ["-i", "{{in}}", "-c", "copy", "-movflags", "+faststart", "{{out}}"],
      "good.ts",
      { fileName: "o.mp4", checks },
    );
    expect(outcome.status, JSON.stringify(outcome)).toBe("completed");
    const out = outcome.outputs[0];
    expect(out.checks!.map((c) => [c.check, c.passed])).toEqual(Object.keys(checks).map((k) => [k, true]));
    expect(out.checks!.find((c) => c.check === "frameCount")!.measured).toBe(100);
    expect(out.sha256).toBe(createHash("sha256").update(stored!.body).digest("hex"));
  });

  it("fails a cut-short output on its duration against the input's, with both numbers, and stores nothing it announces", async () => {
    const { outcome } = await run(["-i", "{{in}}", "-t", "1.5", "-c", "copy", "{{out}}"], "good.ts", {
      fileName: "o.mp4",
      checks: { durationSeconds: { asInput: "in", toleranceSeconds: 0.2 } },
    });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_CHECK_FAILED", outputs: [] });
    const [result] = outcome.checks!.out;
    expect(result).toMatchObject({ check: "durationSeconds", passed: false });
    expect(result.measured as number).toBeLessThan(1.7);
    expect((result.wanted as { seconds: number }).seconds).toBeGreaterThan(3.9);
    expect(outcome.errorMessage).toMatch(/"out" durationSeconds: lasts 1\.\d+ s; wanted 4/);
  });

  it("catches a frame dropped from a constant-rate output (a gap of two frames), and passes the whole one", async () => {
    const drop = [
      "-i",
      "{{in}}",
      "-an",
      "-vf",
      "select='not(eq(n\\,50))'",
      "-fps_mode",
      "passthrough",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "{{out}}",
    ];
    const holed = await run(drop, "good.ts", {
      fileName: "o.mp4",
      checks: { continuity: { maxGapFrames: 1.5 }, frameCount: { min: 100 } },
    });
    expect(failedChecks(holed.outcome)).toEqual(["frameCount", "continuity"]);
    const [count, continuity] = holed.outcome.checks!.out;
    expect(count.measured).toBe(99);
    expect(continuity.measured).toMatchObject({
      frames: 99,
      gaps: 1,
      repeats: 0,
      largestGap: { ms: 80, atSeconds: 1.96 },
    });
    const whole = await run(copy, "good.ts", { fileName: "o.mp4", checks: { continuity: { maxGapFrames: 1.5 } } });
    expect(whole.outcome.status, JSON.stringify(whole.outcome.checks)).toBe("completed");
  });

  it("counts an MPEG-TS output's frames (each packet's line goes on with its side data), as a split's segments are", async () => {
    const { outcome } = await run(copy, "good.ts", {
      fileName: "o.ts",
      checks: { frameCount: { min: 100, max: 100 }, continuity: { maxGapFrames: 1.5 } },
    });
    expect(outcome.status, JSON.stringify(outcome.checks)).toBe("completed");
    expect(outcome.outputs[0].checks!.find((c) => c.check === "frameCount")!.measured).toBe(100);
  });

  it("catches corrupted frames in the middle with a full decode, and passes the clean copy", async () => {
    const bad = await run(copy, "corrupt.ts", { fileName: "o.ts", checks: { fullDecode: true } });
    expect(bad.outcome.errorCode, JSON.stringify(bad.outcome)).toBe("OUTPUT_CHECK_FAILED");
    const measured = bad.outcome.checks!.out[0].measured as { errors: number; first: string[] };
    expect(measured.errors).toBeGreaterThan(0);
    expect(measured.first[0]).toMatch(/\[error\]/);
    const good = await run(copy, "good.ts", { fileName: "o.ts", checks: { fullDecode: true } });
    expect(good.outcome.status).toBe("completed");
  });

  it("catches audio 300 ms late against the video (copied into MP4 with its delay)", async () => {
    const { outcome } = await run(copy, "late.mkv", { fileName: "o.mp4", checks: { avSync: { maxStartDiffMs: 100 } } });
    expect(failedChecks(outcome)).toEqual(["avSync"]);
    const measured = outcome.checks!.out[0].measured as { startDiffMs: number };
    expect(measured.startDiffMs).toBeGreaterThan(250);
  });

  it("measures loudness: a mix normalized to -23 LUFS passes, one 6 LU off fails with its measure", async () => {
    const loudness = { integratedLufs: -23, toleranceLu: 1, truePeakMaxDbtp: -1 };
    const norm = (target: number) => [
      "-i",
      "{{in}}",
      "-af",
      `loudnorm=I=${target}:TP=-2`,
      "-c:v",
      "copy",
      "-c:a",
      "aac",
      "{{out}}",
    ];
    const good = await run(norm(-23), "good.ts", { fileName: "o.mp4", checks: { loudness } });
    expect(good.outcome.status, JSON.stringify(good.outcome.checks ?? good.outcome.outputs)).toBe("completed");
    const off = await run(norm(-17), "good.ts", { fileName: "o.mp4", checks: { loudness } });
    expect(failedChecks(off.outcome)).toEqual(["loudness"]);
    const measured = off.outcome.checks!.out[0].measured as { integratedLufs: number };
    expect(measured.integratedLufs).toBeGreaterThan(-18.5);
  });

  it("catches wrong colour tags, naming each, and passes the right ones", async () => {
    const color = { primaries: "bt709", transfer: "bt709", matrix: "bt709" };
    const tag = (p: string, m: string) => [
      "-i",
      "{{in}}",
      "-an",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-color_primaries",
      p,
      "-color_trc",
      "bt709",
      "-colorspace",
      m,
      "{{out}}",
    ];
    const wrong = await run(tag("bt470bg", "bt470bg"), "good.ts", { fileName: "o.mp4", checks: { color } });
    expect(failedChecks(wrong.outcome)).toEqual(["color"]);
    expect(wrong.outcome.checks!.out[0].message).toBe("primaries bt470bg, wanted bt709; matrix bt470bg, wanted bt709");
    const right = await run(tag("bt709", "bt709"), "good.ts", { fileName: "o.mp4", checks: { color } });
    expect(right.outcome.status).toBe("completed");
  });

  it("measures quality against the input: a heavy encode misses a high SSIM floor, passes a low one", async () => {
    const encode = [
      "-i",
      "{{in}}",
      "-an",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-crf",
      "45",
      "-vf",
      "scale=160:120",
      "{{out}}",
    ];
    const strict = await run(encode, "good.ts", {
      fileName: "o.mp4",
      checks: { quality: { against: "in", minSsim: 0.99, minPsnr: 45 } },
    });
    expect(failedChecks(strict.outcome)).toEqual(["quality"]);
    const m = strict.outcome.checks!.out[0].measured as { ssim: number; psnr: number };
    expect(m.ssim).toBeGreaterThan(0.3);
    expect(m.ssim).toBeLessThan(0.99);
    expect(m.psnr).toBeGreaterThan(10);
    const lax = await run(encode, "good.ts", {
      fileName: "o.mp4",
      checks: { quality: { against: "in", minSsim: 0.3 } },
    });
    expect(lax.outcome.status).toBe("completed");
  });

  it("reports quality frame by frame: the second the encode blurred is the worst, with its time", async () => {
    const blurred = [
      "-i",
      "{{in}}",
      "-an",
      "-vf",
      "boxblur=luma_radius=8:enable='between(t,2,2.99)'",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-crf",
      "18",
      "{{out}}",
    ];
    const { outcome } = await run(blurred, "good.ts", {
      fileName: "o.mp4",
      checks: { quality: { against: "in", minSsim: 0.5 } },
    });
    expect(outcome.status, JSON.stringify(outcome)).toBe("completed");
    const [quality] = outcome.outputs[0].checks!;
    const { report } = quality.measured as {
      report: {
        frames: number;
        ssim: { p5: number; mean: number };
        worstSecond: { startSeconds: number; ssim: number };
      };
    };
    expect(report.frames).toBe(100);
    expect(report.worstSecond.startSeconds).toBe(2);
    expect(report.worstSecond.ssim).toBeLessThan(report.ssim.mean);
    expect(report.ssim.p5).toBeLessThan(report.ssim.mean);
    expect(quality.message).toMatch(/worst second at 2 s \(SSIM 0\.\d+\)$/);
  });

  it("report-only: the job completes and stores the output, its failures listed", async () => {
    const { outcome, stored } = await run(
      copy,
      "good.ts",
      { fileName: "o.mp4", checks: { width: 640, faststart: true } },
      { onFailedCheck: "report" },
    );
    expect(outcome.status).toBe("completed");
    expect(outcome.outputs[0].checks!.map((c) => [c.check, c.passed, c.measured])).toEqual([
      ["width", false, 320],
      ["faststart", false, false],
    ]);
    expect(stored?.body.length).toBe(outcome.outputs[0].size);
  });

  it("takes no measure from a file's metadata: a pass that failed measured nothing, a title's [error] is no error", async () => {
    const req = jobRequest({
      args: ["-i", "{{in}}", "-c", "copy", "{{out}}"],
      // The reference is audio only: the comparison cannot run, whatever the log says.
      inputs: [input("in", "forged.mkv"), input("ref", "tone.m4a")],
      outputs: [
        {
          name: "out",
          fileName: "o.mkv",
          contentType: "video/x-matroska",
          uploadUrl: `${h.storage.url}/${crypto.randomUUID()}/o.mkv`,
          checks: { quality: { against: "ref", minPsnr: 45, minSsim: 0.99 }, fullDecode: true },
        },
      ],
      onFailedCheck: "report",
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished", 60_000);
    const [decode, quality] = done.outcome!.outputs[0].checks!;
    expect(quality).toMatchObject({ check: "quality", passed: false, measured: { psnr: null, ssim: null } });
    expect(quality.message).toMatch(/^not measured: ffmpeg could not read it through/);
    // The output itself decodes cleanly: the [error] in its title is not counted.
    const clean = await run(["-i", "{{in}}", "-c", "copy", "{{out}}"], "forged.mkv", {
      fileName: "o.mkv",
      checks: { fullDecode: true },
    });
    expect(clean.outcome.status, JSON.stringify(clean.outcome.checks)).toBe("completed");
    expect(decode.check).toBe("fullDecode");
  });

  it("reads no line a tag's name writes: a clean file with a forged error in a tag name decodes clean", async () => {
    const keep = ["-i", "{{in}}", "-c", "copy", "-movflags", "use_metadata_tags", "{{out}}"];
    const { outcome } = await run(keep, "named.mp4", {
      fileName: "o.mp4",
      checks: { fullDecode: true, loudness: { integratedLufs: -16, toleranceLu: 0.5 } },
    });
    const [loudness, decode] = outcome.outputs.length ? outcome.outputs[0].checks! : outcome.checks!.out;
    expect(decode).toMatchObject({ check: "fullDecode", passed: true });
    // The sine is not at -16 LUFS, whatever the name says.
    expect(loudness).toMatchObject({ check: "loudness", passed: false });
    expect((loudness.measured as { integratedLufs: number }).integratedLufs).toBeLessThan(-17);
  });

  it("counts decode errors however much metadata the log prints after them", async () => {
    const { outcome } = await run(copy, "corrupt-tagged.mkv", { fileName: "o.mkv", checks: { fullDecode: true } });
    expect(outcome.errorCode, JSON.stringify(outcome.checks)).toBe("OUTPUT_CHECK_FAILED");
    expect((outcome.checks!.out[0].measured as { errors: number }).errors).toBeGreaterThan(0);
  });

  it("sends no output to a destination when another output of the job fails its checks", async () => {
    const paths = [`/${crypto.randomUUID()}/a.mp4`, `/${crypto.randomUUID()}/b.mp4`];
    const destination = (name: string, path: string, checks: OutputChecks) => ({
      name,
      fileName: `${name}.mp4`,
      contentType: "video/mp4",
      uploadUrl: `${h.storage.url}${path}`,
      destination: { headers: {} },
      checks,
    });
    const req = jobRequest({
      args: ["-i", "{{in}}", "-c", "copy", "{{a}}", "-c", "copy", "{{b}}"],
      inputs: [input("in", "good.ts")],
      outputs: [destination("a", paths[0], { readable: true }), destination("b", paths[1], { height: 1080 })],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished", 60_000);
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_CHECK_FAILED" });
    expect(paths.filter((p) => h.storage.received.has(p))).toEqual([]);
  });

  it("sends nothing to a client's destination when its output fails a check", async () => {
    const path = `/${crypto.randomUUID()}/o.mp4`;
    const req = jobRequest({
      args: copy,
      inputs: [input("in", "good.ts")],
      outputs: [
        {
          name: "out",
          fileName: "o.mp4",
          contentType: "video/mp4",
          uploadUrl: `${h.storage.url}${path}`,
          destination: { headers: {} },
          checks: { height: 1080 },
        },
      ],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished", 60_000);
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_CHECK_FAILED" });
    expect(h.storage.received.has(path)).toBe(false);
  });

  it("fails readable (the default check) on a file that is not the media its name says", async () => {
    const { outcome } = await run(["-i", "{{in}}", "-f", "rawvideo", "-frames:v", "2", "{{out}}"], "good.ts", {
      fileName: "o.mp4",
      checks: { readable: true },
    });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_CHECK_FAILED" });
    expect(outcome.checks!.out[0]).toMatchObject({ check: "readable", passed: false });
  });
});
