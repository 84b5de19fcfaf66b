import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunnerProbeResult } from "../../src/runner/runner-protocol.ts";
import { splitShape } from "../../src/jobs/split/split-eligibility.ts";
import { videoLengthSeconds, type SplitFacts } from "../../src/jobs/split/split-facts.ts";
import { planSplitTasks } from "../../src/jobs/split/split-tasks.ts";
import { sceneScanOf } from "../../src/jobs/split/scene-cuts.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/**
 * A split's plan from the runner's probe of the input (POST /probe with measureVideoEnd, as the
 * coordinator asks), on the Matroska files that were planned past their video's end: one whose
 * subtitles end after the picture (the container's duration is theirs), one that starts at 5 s (its
 * Duration element holds its end, not its length). Each 12 s video is planned as 12 s: in segments of
 * 4 s, three, none starting where there is no picture (the fourth was empty: OUTPUT_EMPTY, billed).
 */
const dir = mkdtempSync(join(tmpdir(), "ffjobs-split-probe-"));
const ff = (...args: string[]) => execFileSync("ffmpeg", ["-v", "error", "-y", ...args], { cwd: dir });
writeFileSync(
  join(dir, "late.srt"),
  "1\n00:00:01,000 --> 00:00:02,000\nhello\n\n2\n00:00:14,000 --> 00:00:16,000\nstill here\n",
);
const picture = ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=12"];
ff(
  ...picture,
  "-i",
  "late.srt",
  "-map",
  "0",
  "-map",
  "1",
  "-c:v",
  "libx264",
  "-preset",
  "ultrafast",
  "-c:s",
  "srt",
  "outlasting.mkv",
);
ff(...picture, "-c:v", "libx264", "-preset", "ultrafast", "-output_ts_offset", "5", "starts-at-5.mkv");
// Changes of scene at 4.4 s (near the cut at 4) and 10 s (2 s from the cut at 8), from a start at 5 s.
ff(
  ...["testsrc2", "smptebars", "testsrc"].flatMap((source, i) => [
    "-f",
    "lavfi",
    "-i",
    `${source}=s=320x240:r=25:d=${[4.4, 5.6, 2][i]}`,
  ]),
  "-filter_complex",
  "concat=n=3:v=1:a=0",
  "-c:v",
  "libx264",
  "-preset",
  "ultrafast",
  // A keyframe every second (none at the changes of scene): each window's decode starts close to it.
  "-g",
  "25",
  "-output_ts_offset",
  "5",
  "scenes.mkv",
);

const { h, input } = useRunnerHarness({}, dir);
const shape = splitShape({
  binary: "ffmpeg",
  args: ["-i", "{{video}}", "-c:v", "libx264", "{{out}}"],
  inputs: { video: { type: "url", url: "https://media.example.com/v.mkv" } },
  outputs: { out: { fileName: "out.mkv", contentType: "video/x-matroska" } },
  webhookUrl: null,
});

async function probe(file: string, fields: Record<string, unknown>) {
  const res = await h.api.fetch("/probe", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      probeId: crypto.randomUUID(),
      inputs: [input("video", file)],
      allowedPrivateHosts: ["127.0.0.1"],
      timeoutMs: 30_000,
      ...fields,
    }),
  });
  return ((await res.json()) as RunnerProbeResult).inputs.video;
}

async function planOf(file: string) {
  const probed = await probe(file, { measureVideoEnd: true });
  if (!probed.ok || !probed.split) throw new Error(JSON.stringify(probed));
  if (!("shape" in shape)) throw new Error("the test's command is not a split encode");
  return { facts: probed.split as SplitFacts, tasks: planSplitTasks(probed.split, shape.shape, { segmentSeconds: 4 }) };
}

describe("a split's plan from the runner's probe, on Matroska whose headers outrun the picture", () => {
  for (const [name, file, start] of [
    ["subtitles ending after the picture", "outlasting.mkv", 0],
    ["a start at 5 s", "starts-at-5.mkv", 5],
  ] as const) {
    it(`plans the picture's own 12 s: ${name}`, async () => {
      const { facts, tasks } = await planOf(file);
      expect(videoLengthSeconds(facts)).toBeCloseTo(12, 1);
      const segments = tasks.flatMap((t) => (t.params.kind === "segment" ? [t.params.segment] : []));
      expect(
        segments.map((s) => [s.startSeconds - start, s.endSeconds === null ? null : s.endSeconds - start]),
      ).toEqual([
        [0, 4],
        [4, 8],
        [8, null],
      ]);
    });
  }
});

describe("a split's plan of a variable-rate input, from the runner's probe", () => {
  it("runs it whole into MP4 (one run makes the rate constant by its own rule) and cuts it for Matroska", async () => {
    ff(
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=320x240:r=30:d=12",
      "-vf",
      "select='lt(mod(n\\,7)\\,4)+gt(n\\,200)'",
      "-fps_mode",
      "vfr",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "vfr.mp4",
    );
    const probed = await probe("vfr.mp4", { measureVideoEnd: true });
    if (!probed.ok || !probed.split) throw new Error(JSON.stringify(probed));
    const mp4 = splitShape({
      binary: "ffmpeg",
      args: ["-i", "{{video}}", "-c:v", "libx264", "{{out}}"],
      inputs: { video: { type: "url", url: "https://media.example.com/v.mp4" } },
      outputs: { out: { fileName: "out.mp4", contentType: "video/mp4" } },
      webhookUrl: null,
    });
    if (!("shape" in mp4) || !("shape" in shape)) throw new Error("the test's commands are not split encodes");
    const [only, ...rest] = planSplitTasks(probed.split, mp4.shape, { segmentSeconds: 4 });
    expect(rest).toEqual([]);
    expect(only.params).toMatchObject({
      kind: "whole",
      reason: expect.stringMatching(/frame rate varies \(\d+\/\d+ on average, timestamps at 30\/1\)/),
    });
    expect(planSplitTasks(probed.split, shape.shape, { segmentSeconds: 4 }).map((t) => t.params.kind)).toContain(
      "join",
    );
  });
});

describe("a split's scan of its cuts on the runner (POST /probe with sceneScan)", () => {
  it("moves a cut with a change of scene in its window to it, and leaves one without a scene or a keyframe", async () => {
    const { facts, tasks } = await planOf("scenes.mkv");
    const segments = tasks.flatMap((t) => (t.params.kind === "segment" ? [t.params.segment] : []));
    const scan = sceneScanOf(segments, 4, facts.formatStartSeconds);
    expect(scan.cutsSeconds).toEqual([9, 13]);
    const scanned = await probe("scenes.mkv", { sceneScan: scan });
    if (!scanned.ok) throw new Error(JSON.stringify(scanned));
    // The last frame of the first scene (9.36 s) and the first of the next (9.4 s), not a keyframe: the cut
    // goes there. No change of scene near 13 s: the keyframe there, which decodes by itself.
    expect(scanned.cutScans).toEqual([
      { scene: { beforeSeconds: 9.36, atSeconds: 9.4 }, keyframes: [] },
      { scene: null, keyframes: [{ atSeconds: 13, beforeSeconds: 12.96 }] },
    ]);
    if (!("shape" in shape)) throw new Error("the test's command is not a split encode");
    const placed = planSplitTasks(facts, shape.shape, { segmentSeconds: 4 }, undefined, scanned.cutScans);
    const moved = placed.flatMap((t) => (t.params.kind === "segment" ? [t.params.segment] : []));
    const round = (t: number | null) => (t === null ? null : Number(t.toFixed(6)));
    expect(moved.map((s) => [round(s.startSeconds), round(s.endSeconds), s.cutFromSeconds])).toEqual([
      [5, 9.38, undefined],
      [9.38, 12.98, 9],
      [12.98, null, 13],
    ]);
  });

  it("moves nothing in a file with no picture to scan, or a window past its end", async () => {
    ff("-f", "lavfi", "-i", "sine=d=3", "tone.mka");
    const tone = await probe("tone.mka", { sceneScan: { cutsSeconds: [1], windowSeconds: 1, formatStartSeconds: 0 } });
    expect(tone.ok && tone.cutScans).toEqual([{ scene: null, keyframes: [] }]);
    const past = await probe("scenes.mkv", {
      sceneScan: { cutsSeconds: [500, -3], windowSeconds: 2, formatStartSeconds: 5 },
    });
    expect(past.ok && past.cutScans).toEqual([
      { scene: null, keyframes: [] },
      { scene: null, keyframes: [] },
    ]);
  });

  it("reports a keyframe only where a decode from it starts with it: not x264's intra-refresh recovery points", async () => {
    ff(
      ...picture,
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-x264-params",
      "intra-refresh=1:keyint=25",
      "refresh.mp4",
    );
    ff(...picture, "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "gop.mp4");
    const sceneScan = { cutsSeconds: [4, 8], windowSeconds: 1, formatStartSeconds: 0 };
    const refresh = await probe("refresh.mp4", { sceneScan });
    // Flagged keyframes at 3, 4, 5, 7, 8 and 9 s: none decodes by itself.
    expect(refresh.ok && refresh.cutScans).toEqual([
      { scene: null, keyframes: [] },
      { scene: null, keyframes: [] },
    ]);
    const gop = await probe("gop.mp4", { sceneScan });
    expect(gop.ok && gop.cutScans).toEqual([
      { scene: null, keyframes: [{ atSeconds: 4, beforeSeconds: 3.96 }] },
      { scene: null, keyframes: [{ atSeconds: 8, beforeSeconds: 7.96 }] },
    ]);
  });
});
