import { describe, expect, it } from "vitest";
import { audioArgs, joinArgs, planSegments, segmentArgs } from "../../src/jobs/split/split-plan.ts";

describe("a split encode's segments", () => {
  it("cover the video from its first timestamp; the last runs to the end and is one to two segments long", () => {
    expect(planSegments({ startSeconds: 5, lengthSeconds: 21 }, 6)).toEqual([
      { index: 0, startSeconds: 5, endSeconds: 11 },
      { index: 1, startSeconds: 11, endSeconds: 17 },
      { index: 2, startSeconds: 17, endSeconds: null },
    ]);
    // Shorter than a segment: one, the whole video.
    expect(planSegments({ startSeconds: 0, lengthSeconds: 4 }, 6)).toEqual([
      { index: 0, startSeconds: 0, endSeconds: null },
    ]);
  });

  it("cut by the frames' own timestamps after a seek relative to the input's start, and join in order", () => {
    const encoding = {
      videoFilters: "scale=-2:720",
      videoArgs: ["-c:v", "libx264", "-crf", "20"],
      audioArgs: null,
      outputArgs: [],
      muxer: "mp4" as const,
      defaultStreams: true,
    };
    const args = segmentArgs({ index: 1, startSeconds: 11, endSeconds: 17 }, encoding, {
      input: "in.mp4",
      output: "seg1.ts",
      formatStartSeconds: 4.977,
      constantRate: "30000/1001",
    });
    // The seek half a second early: it lands at or before the GOP an open-GOP keyframe's leading frames need.
    expect(args.slice(0, 6)).toEqual(["-copyts", "-noaccurate_seek", "-ss", "5.523000", "-i", "in.mp4"]);
    // MP4 is written at a constant rate: the frames are put on its grid before the cut, as one run would.
    expect(args[args.indexOf("-vf") + 1]).toBe("fps=30000/1001,trim=start=11.000000:end=17.000000,scale=-2:720");
    expect(args.slice(-3)).toEqual(["-f", "mpegts", "seg1.ts"]);
    expect(
      joinArgs(encoding, { segments: ["s0.ts", "s1.ts"], audio: null, output: "out.mp4", videoDelaySeconds: 0 }),
    ).toEqual(["-i", "concat:s0.ts|s1.ts", "-map", "0:v:0", "-c", "copy", "out.mp4"]);
    // Planned since the join keeps every stream's start: timestamps kept, less the segments' offset and the input's start.
    expect(
      joinArgs(encoding, {
        segments: ["s0.ts", "s1.ts"],
        audio: "a.m4a",
        output: "out.mp4",
        videoDelaySeconds: 0.023,
        formatStartSeconds: 4.977,
      }),
    ).toEqual([
      "-copyts",
      "-itsoffset",
      "-14.977000",
      "-i",
      "concat:s0.ts|s1.ts",
      "-i",
      "a.m4a",
      "-map",
      "0:v:0",
      "-map",
      "1",
      "-c",
      "copy",
      "out.mp4",
    ]);
    // The audio task: ffmpeg's own choice of streams for a command that maps none (subtitles, with -an), else the first audio.
    expect(audioArgs(encoding, { input: "in.mkv", output: "a.mka", subtitles: true })).toEqual([
      "-i",
      "in.mkv",
      "-vn",
      "-dn",
      "-an",
      "-f",
      "mp4",
      "a.mka",
    ]);
    expect(audioArgs({ ...encoding, defaultStreams: false }, { input: "in.mkv", output: "a.mka" })).toBeNull();
  });
});
