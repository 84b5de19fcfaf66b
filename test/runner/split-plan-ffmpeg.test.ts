import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobSpec } from "../../src/jobs/request/job-request.ts";
import { splitShape } from "../../src/jobs/split/split-eligibility.ts";
import { splitFactsOf } from "../../src/jobs/split/split-facts.ts";
import { planSplitTasks } from "../../src/jobs/split/split-tasks.ts";
import { expectedFrames } from "../../src/jobs/split/segment-frames.ts";
import { evaluateChecks } from "../../src/jobs/checks/evaluate-checks.ts";
import {
  joinSeams as joinSeamsOf,
  seamComparisonArguments,
  segmentSeamsOf,
  seamWindowsOf,
  type JoinSeam,
} from "../../src/jobs/split/seam-quality.ts";
import { audioArgs, constantRateOf, joinArgs, planSegments, segmentArgs } from "../../src/jobs/split/split-plan.ts";
import { sceneScanOf } from "../../src/jobs/split/scene-cuts.ts";
import { cutFromScan, placeCuts } from "../../src/jobs/split/place-cuts.ts";
import { scanCutsWith } from "../../container/src/scan-cuts.ts";

/**
 * A split encode's commands (src/jobs/split/split-plan.ts) run with the real ffmpeg, two segments at a
 * time as two workers would, against the job's own command run once (an MP4: ffmpeg makes a variable
 * frame rate constant, and so must the split): the same
 * frames at the same timestamps (so none lost, repeated or moved at a join), audio as long as the video
 * to within a frame, and no worse quality at the joins than elsewhere. Inputs: a constant 30000/1001
 * frame rate, a variable one, a start at 5 s (Matroska), and one keyframe in 20 s.
 */
const run = promisify(execFile);
const ffmpeg = (args: string[]) => run("ffmpeg", ["-v", "error", "-y", ...args], { maxBuffer: 64 * 1024 * 1024 });
let dir: string;

/** The job: as a client sends it, and as splitShape reads it. */
const command = [
  "-i",
  "{{video}}",
  "-vf",
  "scale=320:-2",
  "-c:v",
  "libx264",
  "-preset",
  "veryfast",
  "-crf",
  "23",
  "-c:a",
  "aac",
  "-b:a",
  "96k",
  "-movflags",
  "+faststart",
  "{{out}}",
];
/** The job's split encoding, for an output of that extension (its muxer decides what one run keeps). */
function shapeFor(ext: "mp4" | "mkv") {
  const spec: JobSpec = {
    binary: "ffmpeg",
    args: command,
    inputs: { video: { type: "url", url: "https://media.example.com/v.mp4" } },
    outputs: { out: { fileName: `out.${ext}`, contentType: "video/mp4" } },
    webhookUrl: null,
  };
  const shape = splitShape(spec);
  if (!("shape" in shape)) throw new Error(`the test's command is not eligible: ${JSON.stringify(shape.issues)}`);
  return shape.shape;
}
const encodingFor = (ext: "mp4" | "mkv") => shapeFor(ext).encoding;
const encoding = encodingFor("mp4");
const probeJson = (file: string) =>
  JSON.parse(
    execFileSync("ffprobe", ["-v", "error", "-of", "json", "-show_format", "-show_streams", file], {
      encoding: "utf8",
    }),
  );

type Packet = { pts: number; duration: number };
function videoPackets(file: string): Packet[] {
  const out = execFileSync(
    "ffprobe",
    ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time", "-of", "json", file],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  return (JSON.parse(out).packets as { pts_time: string; duration_time?: string }[])
    .map((p) => ({ pts: Number(p.pts_time), duration: Number(p.duration_time ?? 0) }))
    .sort((a, b) => a.pts - b.pts);
}
/** From a stream's first timestamp to its last frame's end (a packet without a duration: the stream's usual interval). */
function streamSeconds(file: string, stream: "v:0" | "a:0"): number {
  const out = execFileSync(
    "ffprobe",
    ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,duration_time", "-of", "json", file],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const packets = (JSON.parse(out).packets as { pts_time: string; duration_time?: string }[])
    .map((p) => ({ pts: Number(p.pts_time), duration: Number(p.duration_time) }))
    .sort((a, b) => a.pts - b.pts);
  const intervals = packets
    .slice(1)
    .map((p, i) => p.pts - packets[i].pts)
    .sort((a, b) => a - b);
  const usual = intervals[Math.floor(intervals.length / 2)];
  const last = packets.at(-1)!;
  return last.pts + (last.duration > 0 ? last.duration : usual) - packets[0].pts;
}
const frameRate = (file: string) =>
  execFileSync(
    "ffprobe",
    ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0", file],
    { encoding: "utf8" },
  ).trim();
/** A stream's first timestamp, as a player starts it. */
const streamStart = (file: string, stream: string) =>
  Number(
    execFileSync(
      "ffprobe",
      ["-v", "error", "-select_streams", stream, "-show_entries", "stream=start_time", "-of", "csv=p=0", file],
      { encoding: "utf8" },
    ).trim(),
  );
const formatStart = (file: string) =>
  Number(
    execFileSync("ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", file], {
      encoding: "utf8",
    }).trim(),
  );

/** The split encode of `input`, as the coordinator will run it: segments two at a time, the audio, the join. */
async function splitEncode(
  input: string,
  segmentSeconds: number,
  name: string,
  ext: "mp4" | "mkv",
): Promise<{
  output: string;
  cuts: number[];
  expected: number[] | null;
  written: number[];
  joinSeams: JoinSeam[];
}> {
  const encoding = encodingFor(ext);
  const packets = videoPackets(input);
  const start = packets[0].pts;
  const last = packets.at(-1)!;
  const evenly = planSegments({ startSeconds: start, lengthSeconds: last.pts + last.duration - start }, segmentSeconds);
  // The plan's scan of its cuts, as the runner makes it (container/src/scan-cuts.ts, here unsandboxed).
  const scan = sceneScanOf(evenly, segmentSeconds, formatStart(input));
  const constantRate = constantRateOf(encoding.muxer, frameRate(input));
  const scans = await scanCutsWith(
    (binary, argv) =>
      run(binary, argv, { maxBuffer: 8 * 1024 * 1024 }).then(
        (r) => r.stdout,
        () => null,
      ),
    input,
    scan,
  );
  const placed = scan.cutsSeconds.map((cut, k) => cutFromScan(scans[k], cut, scan.windowSeconds, constantRate));
  const segments = placeCuts(evenly, placed, scan.windowSeconds);
  const files = segments.map((s) => join(dir, `${name}-seg-${s.index}.ts`));
  const edgeFiles = segments.map((s) => join(dir, `${name}-edges-${s.index}.mkv`));
  // The frames the plan expects of each segment on a constant grid (split-tasks.ts): what the join checks.
  const length = last.pts + last.duration - start;
  const expected = constantRate
    ? segments.map(
        (s) => expectedFrames(s, { startSeconds: start, durationSeconds: length, frameRate: constantRate }, length)!,
      )
    : null;
  // The joins' report, where the plan asks for it: constant-rate outputs (task-requests.ts).
  const seamWindows = segments.map((s) => (expected ? seamWindowsOf(s, expected[s.index]) : null));
  const queue = [...segments];
  await Promise.all(
    [0, 1].map(async () => {
      for (let s = queue.shift(); s; s = queue.shift())
        await ffmpeg(
          segmentArgs(s, encoding, {
            input,
            output: files[s.index],
            formatStartSeconds: formatStart(input),
            constantRate,
            exactTimestamps: true,
            ...(seamWindows[s.index] ? { seams: { output: edgeFiles[s.index], windows: seamWindows[s.index]! } } : {}),
          }),
        );
    }),
  );
  // Each segment's edges compared as the runner compares them (container/src/measure-seams.ts).
  const seams = await Promise.all(
    segments.map(async (s) => {
      const windows = seamWindows[s.index];
      if (!windows) return { startSeconds: s.startSeconds - start, seams: null };
      // A comparison that fails is no report, as on the runner.
      const { stdout } = await run(
        "ffmpeg",
        seamComparisonArguments(files[s.index], edgeFiles[s.index], windows, () => []),
      ).catch(() => ({ stdout: "" }));
      const ssim = stdout
        .split("\n")
        .flatMap((l) => /All:([\d.]+)/.exec(l)?.[1] ?? [])
        .map(Number);
      return { startSeconds: s.startSeconds - start, seams: segmentSeamsOf(ssim, windows) };
    }),
  );
  const audio = join(dir, `${name}-audio.${ext}`);
  // As the plan decides (split-tasks.ts): the text subtitles one run into Matroska keeps.
  const subtitles = splitFactsOf(
    JSON.parse(
      execFileSync("ffprobe", ["-v", "error", "-of", "json", "-show_format", "-show_streams", input], {
        encoding: "utf8",
      }),
    ),
  )!;
  await ffmpeg(
    audioArgs(encoding, {
      input,
      output: audio,
      subtitles: encoding.muxer === "matroska" && (subtitles.textSubtitleStreams ?? 0) > 0,
    })!,
  );
  const output = join(dir, `${name}-split.${ext}`);
  await ffmpeg(
    joinArgs(encoding, {
      segments: files,
      audio,
      output,
      videoDelaySeconds: start - formatStart(input),
      formatStartSeconds: formatStart(input),
    }),
  );
  // The cuts from the video's first frame, as the output's timestamps count.
  const written = files.map((f) => videoPackets(f).length);
  return {
    output,
    cuts: segments.slice(1).map((s) => s.startSeconds - start),
    expected,
    written,
    joinSeams: joinSeamsOf(seams),
  };
}

/** The job's own command, run once. */
async function singleEncode(input: string, name: string, ext: "mp4" | "mkv"): Promise<string> {
  const output = join(dir, `${name}-single.${ext}`);
  await ffmpeg(command.map((a) => (a === "{{video}}" ? input : a === "{{out}}" ? output : a)));
  return output;
}

/**
 * Per-frame SSIM of `encoded` against the input scaled the same way; `constantRate`: the input's frames made
 * constant-rate first from `startSeconds`, as one run makes them for MP4.
 */
function ssimPerFrame(encoded: string, input: string, constantRate: string | null, startSeconds: number): number[] {
  const grid = constantRate ? `fps=${constantRate}:start_time=${startSeconds},` : "";
  const stats = join(dir, `ssim-${Math.random().toString(36).slice(2)}.log`);
  execFileSync("ffmpeg", [
    "-v",
    "error",
    "-i",
    encoded,
    "-copyts",
    "-i",
    input,
    "-lavfi",
    `[1:v]${grid}${encoding.videoFilters},setpts=PTS-STARTPTS[ref];[0:v]setpts=PTS-STARTPTS[enc];[enc][ref]ssim=stats_file=${stats}`,
    "-f",
    "null",
    "-",
  ]);
  return execFileSync("cat", [stats], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((l) => Number(/All:([0-9.]+)/.exec(l)![1]));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "split-plan-"));
  const make = (name: string, args: string[]) =>
    execFileSync("ffmpeg", ["-v", "error", "-y", ...args, join(dir, name)]);
  const source = [
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=640x360:rate=30000/1001:duration=20",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:duration=20",
  ];
  make("cfr.mp4", [...source, "-c:v", "libx264", "-preset", "ultrafast", "-g", "90", "-c:a", "aac", "-shortest"]);
  make("vfr.mp4", [
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=640x360:rate=30:duration=20",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=300:duration=20",
    "-vf",
    "select='lt(mod(n\\,7)\\,4)+gt(n\\,400)'",
    "-fps_mode",
    "vfr",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-c:a",
    "aac",
  ]);
  make("offset.mkv", ["-i", join(dir, "cfr.mp4"), "-c", "copy", "-output_ts_offset", "5"]);
  // Keyframes every 151 frames land 38 ms after each 5 s cut; their leading frames, shown before them, are in the segment.
  make("open-gop.mp4", [
    ...source,
    "-c:v",
    "libx265",
    "-preset",
    "ultrafast",
    "-x265-params",
    "keyint=151:min-keyint=151:scenecut=0:open-gop=1:bframes=3:log-level=error",
    "-c:a",
    "aac",
    "-shortest",
  ]);
  writeFileSync(
    join(dir, "s.srt"),
    "1\n00:00:01,000 --> 00:00:02,000\nhello\n\n2\n00:00:14,000 --> 00:00:16,000\nbye\n",
  );
  make("subtitled.mkv", [
    "-i",
    join(dir, "cfr.mp4"),
    "-i",
    join(dir, "s.srt"),
    "-map",
    "0",
    "-map",
    "1",
    "-c:v",
    "copy",
    "-c:a",
    "copy",
    "-c:s",
    "srt",
  ]);
  // Audio that starts 0.3 s after the picture, as cameras and edits make it.
  make("late-audio.mkv", [
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=640x360:rate=30000/1001:duration=20",
    "-itsoffset",
    "0.3",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:duration=19.7",
    "-map",
    "0:v",
    "-map",
    "1:a",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-g",
    "90",
    "-c:a",
    "aac",
  ]);
  // Four scenes (different pictures), cut at 5.6, 12.8 and 14.3 s; 30 fps.
  const scene = (source: string, seconds: number) => [
    "-f",
    "lavfi",
    "-i",
    `${source}=size=640x360:rate=30:duration=${seconds}`,
  ];
  make("scenes.mp4", [
    ...scene("testsrc2", 5.6),
    ...scene("smptebars", 7.2),
    ...scene("testsrc", 1.5),
    ...scene("rgbtestsrc", 5.7),
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=500:duration=20",
    "-filter_complex",
    "[0:v][1:v][2:v][3:v]concat=n=4:v=1:a=0[v]",
    "-map",
    "[v]",
    "-map",
    "4:a",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-c:a",
    "aac",
  ]);
  make("intra-refresh.mp4", [
    ...source,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-x264-params",
    "intra-refresh=1:keyint=30",
    "-c:a",
    "aac",
    "-shortest",
  ]);
  make("half-slot-video.mp4", [
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=640x360:rate=30000/1001:duration=20",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-g",
    "30",
    "-bf",
    "0",
    "-video_track_timescale",
    "60000",
  ]);
  make("half-slot-shifted.mp4", [
    "-i",
    join(dir, "half-slot-video.mp4"),
    "-c",
    "copy",
    "-bsf:v",
    "setts=ts=TS+1001",
    "-video_track_timescale",
    "60000",
    "-movie_timescale",
    "60000",
  ]);
  make("half-slot.mp4", [
    "-copyts",
    "-i",
    join(dir, "half-slot-shifted.mp4"),
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:duration=20",
    "-map",
    "0:v",
    "-map",
    "1:a",
    "-c:v",
    "copy",
    "-c:a",
    "aac",
    "-video_track_timescale",
    "60000",
    "-movie_timescale",
    "60000",
  ]);
  make("cut-between.mp4", ["-i", join(dir, "cfr.mp4"), "-ss", "1.5", "-c", "copy", "-copyinkf"]);
  make("sparse.mp4", [
    "-i",
    join(dir, "cfr.mp4"),
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-g",
    "600",
    "-keyint_min",
    "600",
    "-sc_threshold",
    "0",
    "-c:a",
    "copy",
  ]);
}, 120_000);
afterAll(() => (process.env.KEEP_SPLIT ? undefined : rmSync(dir, { recursive: true, force: true })));

describe("a split encode's commands, run with the real ffmpeg", () => {
  for (const [name, input, segmentSeconds, ext = "mp4", scenes] of [
    // Keyframes every 3 s: each cut moves to the keyframe in its window, and its segment seeks straight to it.
    ["a constant 30000/1001 frame rate", "cfr.mp4", 5, "mp4", [5.993, 8.996, 15.002]],
    ["a variable frame rate", "vfr.mp4", 3],
    ["a start at 5 s", "offset.mkv", 4],
    ["one keyframe in 20 s", "sparse.mp4", 6],
    ["audio starting 0.3 s after the picture", "late-audio.mkv", 5],
    ["Matroska to Matroska with subtitles", "subtitled.mkv", 5, "mkv"],
    // Cut just before its CRA keyframes, each segment seeks straight to one: its leading frames, shown
    // before it, belong to the segment before, which decodes them.
    // Recovery points flagged as keyframes, none decoding by itself: no cut moves to one, every segment seeks
    // from its margin (a straight seek lost a second at each join).
    ["x264's intra refresh (keyframes that need the frames before them)", "intra-refresh.mp4", 5, "mp4", [5, 10, 15]],
    // A keyframe every second, each half a slot off the 30000/1001 grid (the video starts 16.7 ms in): the
    // plan cannot tell which slot ffmpeg rounds one to, so none is cut at.
    ["keyframes half a slot off the grid", "half-slot.mp4", 5, "mp4", [5, 10, 15]],
    // Its first 1.5 s do not decode (a stream copy cut between keyframes): the first segment reads from the
    // file's start as one run does (a seek to 0 landed on the keyframe after, a GOP lost), and fills the
    // slots before the first frame that decodes with it, as one run does.
    ["a file cut between keyframes", "cut-between.mp4", 5],
    ["an open GOP (HEVC CRA keyframes just after the cuts)", "open-gop.mp4", 5, "mp4", [5.025, 10.063, 15.102]],
    // Changes of scene at 5.6 s (near the cut at 5), 12.8 s (2.2 s from both 10 and 15) and 14.3 s
    // (near 15), the encoder's keyframes there and at 8.33 s: the first and the last cut move to just
    // before the new scene's first frame (0.4 of a frame), the middle one stays (no scene or keyframe near it).
    ["changes of scene near and far from the cuts", "scenes.mp4", 5, "mp4", [5.587, 10, 14.287]],
  ] as [string, string, number, ("mp4" | "mkv")?, number[]?][]) {
    it(`give the frames of one encode at its timestamps, in sync and as good at the joins: ${name}`, async () => {
      const source = join(dir, input);
      const [{ output, cuts, expected, written, joinSeams }, single] = await Promise.all([
        splitEncode(source, segmentSeconds, input, ext),
        singleEncode(source, input, ext),
      ]);
      expect(cuts.length).toBeGreaterThanOrEqual(2);
      if (scenes) expect(cuts.map((c) => Number(c.toFixed(3)))).toEqual(scenes);
      const split = videoPackets(output);
      // The same frames at the same times, relative to the first: nothing lost, repeated or moved at a join.
      // (One run fills a video that starts after its audio with a repeat of the first frame: within a frame.)
      const whole = videoPackets(single);
      const same = whole.length === split.length + 1 ? whole.slice(1) : whole;
      expect(split.length).toBe(same.length);
      // On a constant grid each segment wrote the frames the plan expects of it (the last within a frame),
      // and the whole as many as one run, within the last frame: what the join's frame count checks.
      if (expected) {
        expect(written.slice(0, -1)).toEqual(expected.slice(0, -1));
        expect(Math.abs(written.at(-1)! - expected.at(-1)!)).toBeLessThanOrEqual(1);
        expect(Math.abs(whole.length - expected.reduce((a, b) => a + b, 0))).toBeLessThanOrEqual(1);
      }
      // (Within a millisecond: Matroska keeps milliseconds.)
      const moved = split.map((p, i) => Math.abs(p.pts - split[0].pts - (same[i].pts - same[0].pts)));
      expect(Math.max(...moved)).toBeLessThanOrEqual(0.0011);
      const frame = whole[1].pts - whole[0].pts;
      // The same streams as one run: its subtitles kept where it keeps them, in its codec.
      const streamsOf = (file: string) =>
        execFileSync(
          "ffprobe",
          ["-v", "error", "-show_entries", "stream=codec_type,codec_name", "-of", "csv=p=0", file],
          {
            encoding: "utf8",
          },
        ).trim();
      expect(streamsOf(output)).toBe(streamsOf(single));
      // Each stream starts where one run starts it, within a frame: the audio's delay kept (joined as each
      // input from 0, audio 0.3 s late came out 0.25 s early). Within a frame: one run fills a video that
      // starts after its audio with a repeat of its first frame (MP4), or shifts it a frame (Matroska).
      const starts = (file: string) => ["v:0", "a:0"].map((s) => streamStart(file, s));
      const [splitVideo, splitAudio] = starts(output);
      const [singleVideo, singleAudio] = starts(single);
      expect(Math.abs(splitAudio - splitVideo - (singleAudio - singleVideo))).toBeLessThanOrEqual(frame + 0.0011);
      // The join's own avSync (split-tasks.ts, task-requests.ts): the input's audio offset kept within a frame.
      const planned = planSplitTasks(splitFactsOf(probeJson(source))!, shapeFor(ext), { segmentSeconds }).at(-1)!;
      if (planned.params.kind === "join" && planned.params.audioOffsetMs !== undefined) {
        const { audioOffsetMs, frameMs } = planned.params;
        const [sync] = evaluateChecks(
          { avSync: { startOffsetMs: audioOffsetMs, maxStartDiffMs: frameMs! + 1 } },
          {
            probe: probeJson(output),
            size: 0,
            inputDurations: {},
            analysis: null,
            analysisFailure: null,
            videoPackets: null,
            indexFirst: null,
            vmafAvailable: false,
          },
        );
        expect(sync, JSON.stringify(sync)).toMatchObject({ check: "avSync", passed: true });
      }
      // The audio as long as the video, within a frame (it is one encode of the whole input).
      expect(Math.abs(streamSeconds(output, "a:0") - streamSeconds(output, "v:0"))).toBeLessThanOrEqual(
        Math.abs(streamSeconds(single, "a:0") - streamSeconds(single, "v:0")) + frame + 0.001,
      );
      // Quality at the joins no worse than elsewhere: SSIM against the source, the two frames each side.
      const ssim = ssimPerFrame(
        output,
        source,
        constantRateOf(encodingFor(ext).muxer, frameRate(source)),
        videoPackets(source)[0].pts,
      );
      const startPts = split[0].pts;
      const joinFrames = cuts.map((cut) => split.findIndex((p) => p.pts - startPts >= cut - 1e-6));
      const near = joinFrames.flatMap((f) => [f - 2, f - 1, f, f + 1]).map((i) => ssim[i]);
      const away = ssim.filter((_, i) => joinFrames.every((f) => Math.abs(i - f) > 10));
      const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
      expect(mean(near)).toBeGreaterThanOrEqual(mean(away) - 0.005);
      // The joins' report (constant-rate outputs): one per join, where it is, as good as the frames around it.
      if (expected) {
        expect(joinSeams.map((j) => Number(j.atSeconds.toFixed(3)))).toEqual(cuts.map((c) => Number(c.toFixed(3))));
        for (const j of joinSeams) {
          expect(j.ssim).toBeGreaterThan(0.8);
          expect(j.ssim).toBeGreaterThanOrEqual(j.aroundSsim - 0.01);
        }
      }
    }, 120_000);
  }
});
