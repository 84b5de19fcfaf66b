import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";
import { withClaimedDuration } from "../support/lying-media.ts";

/**
 * Split encodes through the real stack: the Worker plans the job from a probe of its input,
 * runs its segments and audio as runner tasks of their own, joins them, and stores one output. Checked
 * against the same command run as an ordinary job on the same stack.
 */
const { fx, local } = useLocalStack();
const SOURCE = "split-source.mp4";
const root = resolve(import.meta.dirname, "../..");
const execFileAsync = promisify(execFile);

/** 13 s at 30000/1001 with a tone, a keyframe every 2 s: 2 segments of 5 s (the last runs to the end). */
beforeAll(() => {
  const path = join(fx.dir, SOURCE);
  if (!existsSync(path)) {
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=size=640x360:rate=30000/1001:duration=13",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=13",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-g",
      "60",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      path,
    ]);
  }
});

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
const body = (extra: Record<string, unknown> = {}) => ({
  inputs: { video: { type: "url", url: `${local.media.url}/${SOURCE}` } },
  outputs: { out: { fileName: "out.mp4" } },
  ffmpegArgs: command,
  ...extra,
});

function packets(url: string, stream: "v:0" | "a:0"): { pts: number; duration: number }[] {
  const out = execFileSync(
    "ffprobe",
    ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,duration_time", "-of", "json", url],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  return (JSON.parse(out).packets as { pts_time: string; duration_time?: string }[])
    .map((p) => ({ pts: Number(p.pts_time), duration: Number(p.duration_time ?? 0) }))
    .sort((a, b) => a.pts - b.pts);
}

describe("split encodes, run for real", () => {
  it("cuts, encodes apart, joins: the same frames at the same times as the job run once, audio as long", async () => {
    const [split, single] = await Promise.all([
      local.runToEnd(body({ parallel: { segmentSeconds: 5, maxWorkers: 2 } }), 180_000),
      local.runToEnd(body(), 180_000),
    ]);
    expect(split, JSON.stringify(split)).toMatchObject({
      status: "completed",
      parallel: { segmentSeconds: 5, maxWorkers: 2 },
    });
    expect(single.status).toBe("completed");
    const [a, b] = [split, single].map((j) => packets(j.outputs[0].downloadUrl, "v:0"));
    const frame = 1001 / 30000;
    // A single run may start with one duplicated frame (ffmpeg 5.1's rate conversion): within one frame.
    expect(Math.abs(a.length - b.length)).toBeLessThanOrEqual(1);
    const offset = b.length - a.length;
    for (const [i, p] of a.entries()) expect(Math.abs(p.pts - b[i + offset].pts), `frame ${i}`).toBeLessThan(0.0011);
    for (let i = 1; i < a.length; i++) expect(a[i].pts - a[i - 1].pts, `frame ${i}`).toBeCloseTo(frame, 3);
    const probe = ffprobeJson(split.outputs[0].downloadUrl);
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    const audio = packets(split.outputs[0].downloadUrl, "a:0");
    const videoEnd = a.at(-1)!.pts + frame;
    const audioEnd = audio.at(-1)!.pts + audio.at(-1)!.duration;
    expect(Math.abs(audioEnd - videoEnd)).toBeLessThan(frame);
    // Billed for the tasks' run time added up; the phases meet.
    expect(split.runtimeSeconds).toBeGreaterThanOrEqual(2);
    const t = split.timings;
    expect(t.queuedMs + t.fetchMs + t.runMs + t.storeMs + t.finishMs).toBeCloseTo(
      Date.parse(split.finishedAt) - Date.parse(split.createdAt),
      -2,
    );
    expect(split.inputReads.video.bytesRead).toBeGreaterThan(0);
  });
});

/**
 * Whether the stack's local R2 holds `key` (read through wrangler, as the fault suite reads D1). Not
 * spawnSync: a blocked event loop misses the server closing an idle connection, and the next request fails.
 */
async function stored(key: string): Promise<boolean> {
  const args = [
    "r2",
    "object",
    "get",
    `ffjobs-media/${key}`,
    "--local",
    "--persist-to",
    local.stack.stateDir,
    "--pipe",
  ];
  return execFileAsync(join(root, "node_modules/.bin/wrangler"), args, {
    cwd: root,
    env: { ...local.stack.env, CI: "true" },
    encoding: "buffer",
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    ({ stdout }) => stdout.length > 0,
    () => false,
  );
}

describe("split encodes: what users meet", () => {
  it("lists its tasks: the audio and two segments, then the join, each once; its work files are gone once it ends", async () => {
    const job = await local.runToEnd(body({ parallel: { segmentSeconds: 5, maxWorkers: 2 } }), 180_000);
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const tasks = (await local.api.call("GET", `/v1/jobs/${job.id}/tasks`)).body.data;
    expect(tasks.map((t: any) => [t.name, t.kind, t.status, t.attempts])).toEqual([
      ["audio", "audio", "completed", 1],
      ["segment-0", "segment", "completed", 1],
      ["segment-1", "segment", "completed", 1],
      ["join", "join", "completed", 1],
    ]);
    // Planned at 5 s, the cut moved to the keyframe nearest it (every 60 frames: 4.004 s), 0.4 of a frame
    // before it, so the second segment seeks straight to it; the tasks list says so.
    const cut = expect.closeTo((120 - 0.4) / (30000 / 1001), 9);
    expect(tasks[1]).toMatchObject({ startSeconds: 0, endSeconds: cut, reason: null });
    expect(tasks[2]).toMatchObject({
      startSeconds: cut,
      endSeconds: null,
      reason: "its cut moved from 5.000 s to 3.991 s, before the keyframe at 4.004 s",
    });
    // The join's report: its one join, the frames at it as good as those around it (each against what
    // the encoder was fed); the other tasks have none.
    expect(tasks[3].seams).toEqual([{ atSeconds: cut, ssim: expect.any(Number), aroundSsim: expect.any(Number) }]);
    const [seam] = tasks[3].seams;
    expect(seam.ssim).toBeGreaterThan(0.8);
    expect(seam.ssim).toBeGreaterThanOrEqual(seam.aroundSsim - 0.01);
    for (const t of tasks.slice(0, 3)) expect(t.seams).toBeNull();
    // Billed for the tasks' run time added up (whole seconds, rounded up once).
    const total = tasks.reduce((sum: number, t: any) => sum + t.runtimeSeconds, 0);
    expect(job.runtimeSeconds).toBe(Math.ceil(total));
    // The join started once both segments and the audio had finished.
    const joinStart = Date.parse(tasks[3].startedAt);
    for (const t of tasks.slice(0, 3)) expect(Date.parse(t.finishedAt)).toBeLessThanOrEqual(joinStart);
    expect(await stored(`outputs/${job.id}/out/out.mp4`)).toBe(true);
    for (const file of ["segment-0.ts", "segment-1.ts", "audio.m4a"])
      expect(await stored(`work/${job.id}/${file}`), file).toBe(false);
  });

  it("refuses a job that cannot be split with a 400 that says why, where", async () => {
    const notFrameByFrame = await local.api.call("POST", "/v1/jobs", {
      ...body({ parallel: { segmentSeconds: 5, maxWorkers: 2 } }),
      ffmpegArgs: ["-i", "{{video}}", "-vf", "minterpolate", "-c:v", "libx264", "{{out}}"],
    });
    expect(notFrameByFrame.status).toBe(400);
    expect(JSON.stringify(notFrameByFrame.body)).toMatch(/filter \\"minterpolate\\" uses other frames/);
    const twoOutputs = await local.api.call("POST", "/v1/jobs", {
      ...body({ parallel: { segmentSeconds: 5, maxWorkers: 2 } }),
      outputs: { out: { fileName: "out.mp4" }, thumb: { fileName: "t.jpg" } },
      ffmpegArgs: ["-i", "{{video}}", "-c:v", "libx264", "{{out}}", "-frames:v", "1", "{{thumb}}"],
    });
    expect(twoOutputs.status).toBe(400);
    expect(twoOutputs.body.details).toContainEqual(
      expect.objectContaining({ path: ["parallel"], message: expect.stringMatching(/one file output/) }),
    );
    const tooSmall = await local.api.call("POST", "/v1/jobs", body({ parallel: { segmentSeconds: 1, maxWorkers: 2 } }));
    expect(tooSmall.status).toBe(400);
  });

  it("fails with the segment that failed and why, stopping the rest", async () => {
    // A crop larger than the frame fails in every segment: the first to report names itself.
    const job = await local.runToEnd(
      {
        ...body({ parallel: { segmentSeconds: 5, maxWorkers: 2 } }),
        ffmpegArgs: ["-i", "{{video}}", "-vf", "crop=4000:4000", "-c:v", "libx264", "-an", "{{out}}"],
      },
      180_000,
    );
    expect(job, JSON.stringify(job)).toMatchObject({ status: "failed", errorCode: "PROCESS_FAILED", outputs: [] });
    expect(job.errorMessage).toMatch(/^segment [01] \([0-9.]+-([0-9.]+ s|end)\): .*(crop|Invalid|too big)/i);
    const tasks = (await local.api.call("GET", `/v1/jobs/${job.id}/tasks`)).body.data;
    expect(tasks.some((t: any) => t.status === "running" || t.status === "completed")).toBe(false);
    expect(tasks.find((t: any) => t.kind === "join").status).toBe("pending");
  });

  it("splits a preset that can be (web-mp4), running the command it plans for the input", async () => {
    const job = await local.runToEnd(
      {
        mode: "preset",
        preset: "web-mp4",
        params: { height: 240 },
        inputs: { video: { type: "url", url: `${local.media.url}/${SOURCE}` } },
        parallel: { segmentSeconds: 5, maxWorkers: 2 },
      },
      180_000,
    );
    expect(job, JSON.stringify(job)).toMatchObject({
      status: "completed",
      preset: "web-mp4",
      parallel: { segmentSeconds: 5, maxWorkers: 2 },
    });
    const tasks = (await local.api.call("GET", `/v1/jobs/${job.id}/tasks`)).body.data;
    expect(tasks.map((t: any) => t.name)).toEqual(["audio", "segment-0", "segment-1", "join"]);
    expect(job.plannedArgs).toEqual(expect.arrayContaining(["libx264", "+faststart"]));
    const probe = ffprobeJson(job.outputs[0].downloadUrl);
    expect(probe.streams.map((s) => [s.codec_name, s.height ?? null])).toEqual([
      ["h264", 240],
      ["aac", null],
    ]);
    // Other presets are refused where they ask for it.
    const webm = await local.api.call("POST", "/v1/jobs", {
      mode: "preset",
      preset: "webm",
      inputs: { video: { type: "url", url: `${local.media.url}/${SOURCE}` } },
      parallel: { segmentSeconds: 5, maxWorkers: 2 },
    });
    expect(webm.status).toBe(400);
    expect(webm.body.details[0]).toMatchObject({
      path: ["parallel"],
      message: expect.stringMatching(/preset webm cannot be split/),
    });
  });

  it("runs an input it cannot cut (MPEG-TS) as one command, and says why", async () => {
    const ts = join(fx.dir, "split-source.ts");
    if (!existsSync(ts)) execFileSync("ffmpeg", ["-v", "error", "-y", "-i", join(fx.dir, SOURCE), "-c", "copy", ts]);
    const job = await local.runToEnd(
      {
        ...body({ parallel: { segmentSeconds: 5, maxWorkers: 2 } }),
        inputs: { video: { type: "url", url: `${local.media.url}/split-source.ts` } },
      },
      180_000,
    );
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const tasks = (await local.api.call("GET", `/v1/jobs/${job.id}/tasks`)).body.data;
    expect(tasks).toEqual([
      expect.objectContaining({ kind: "whole", status: "completed", reason: expect.stringMatching(/MPEG-TS/) }),
    ]);
    expect(ffprobeJson(job.outputs[0].downloadUrl).streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
  });

  it("plans from where a file's video really ends, whatever its header claims", async () => {
    // The 13 s source as Matroska, claiming 40 s and 10^12 s: each is planned as 13 s, two segments of 5 s.
    const mkv = join(fx.dir, "split-source.mkv");
    if (!existsSync(mkv)) execFileSync("ffmpeg", ["-v", "error", "-y", "-i", join(fx.dir, SOURCE), "-c", "copy", mkv]);
    withClaimedDuration(mkv, join(fx.dir, "claims-40s.mkv"), 40);
    withClaimedDuration(mkv, join(fx.dir, "claims-1e12s.mkv"), 1e12);
    const lying = (file: string) => ({
      ...body({ parallel: { segmentSeconds: 5, maxWorkers: 4 } }),
      inputs: { video: { type: "url", url: `${local.media.url}/${file}` } },
    });
    const [short, absurd, single] = await Promise.all([
      local.runToEnd(lying("claims-40s.mkv"), 180_000),
      local.runToEnd(lying("claims-1e12s.mkv"), 180_000),
      local.runToEnd(body(), 180_000),
    ]);
    const frames = (job: any) => packets(job.outputs[0].downloadUrl, "v:0").length;
    for (const job of [short, absurd]) {
      expect(job.status, JSON.stringify(job)).toBe("completed");
      expect(Math.abs(frames(job) - frames(single))).toBeLessThanOrEqual(1);
      const tasks = (await local.api.call("GET", `/v1/jobs/${job.id}/tasks`)).body.data;
      expect(
        tasks.map((t: any) => t.name),
        job.id,
      ).toEqual(["audio", "segment-0", "segment-1", "join"]);
      // Billed about what one run costs, not for segments of a length the file does not have.
      expect(job.runtimeSeconds).toBeLessThanOrEqual(single.runtimeSeconds + 4);
    }
  });

  it("stops every task at the job's time limit, which covers the whole", async () => {
    const job = await local.runToEnd(
      {
        inputs: { video: { type: "url", url: `${local.media.url}/long.mp4` } },
        outputs: { out: { fileName: "out.mp4" } },
        ffmpegArgs: ["-i", "{{video}}", "-c:v", "libx264", "-preset", "slow", "{{out}}"],
        parallel: { segmentSeconds: 20, maxWorkers: 2 },
        timeoutSeconds: 4,
      },
      120_000,
    );
    expect(job, JSON.stringify(job)).toMatchObject({ status: "failed", errorCode: "JOB_TIMEOUT", outputs: [] });
    const tasks = (await local.api.call("GET", `/v1/jobs/${job.id}/tasks`)).body.data;
    expect(tasks.some((t: any) => t.status === "running")).toBe(false);
    // What ran is billed: every task's run time, those the deadline stopped too. (The plan's probe and scene
    // scan come out of the same 4 s: on a loaded machine few seconds are left to the tasks; CI saw 0 once.)
    const ran = tasks.reduce((n: number, t: any) => n + t.runtimeSeconds, 0);
    expect(job.runtimeSeconds, JSON.stringify(tasks)).toBeGreaterThanOrEqual(Math.floor(ran));
    expect(job.runtimeSeconds, JSON.stringify(tasks)).toBeLessThanOrEqual(Math.ceil(ran) + tasks.length);
    expect(Date.parse(job.finishedAt) - Date.parse(job.startedAt)).toBeLessThan(30_000);
  });

  it("cancels a running split job: its tasks stop, what ran is billed, its work files go", async () => {
    const slow = ["-i", "{{video}}", "-c:v", "libx264", "-preset", "medium", "{{out}}"];
    const created = await local.api.call("POST", "/v1/jobs", {
      inputs: { video: { type: "url", url: `${local.media.url}/long.mp4` } },
      outputs: { out: { fileName: "out.mp4" } },
      ffmpegArgs: slow,
      parallel: { segmentSeconds: 10, maxWorkers: 2 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = created.body.id;
    // Until a segment has finished (its work file stored) while others run.
    const deadline = Date.now() + 120_000;
    let tasks: any[] = [];
    // Progress moves while the segments are under way, before any has finished (their frames count).
    let percentBeforeAnySegment = 0;
    while (Date.now() < deadline && !tasks.some((t) => t.kind === "segment" && t.status === "completed")) {
      const job = (await local.api.call("GET", `/v1/jobs/${id}`)).body;
      tasks = (await local.api.call("GET", `/v1/jobs/${id}/tasks`)).body.data;
      if (!tasks.some((t) => t.kind === "segment" && t.status === "completed"))
        percentBeforeAnySegment = Math.max(percentBeforeAnySegment, job.progress?.percent ?? 0);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(percentBeforeAnySegment).toBeGreaterThan(0);
    expect(percentBeforeAnySegment).toBeLessThan(90);
    const done = tasks.find((t) => t.kind === "segment" && t.status === "completed");
    expect(done, JSON.stringify(tasks)).toBeDefined();
    expect(await stored(`work/${id}/${done.name}.ts`)).toBe(true);
    const canceled = await local.api.call("POST", `/v1/jobs/${id}/cancel`);
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body).toMatchObject({ status: "canceled", errorCode: "CANCELED" });
    expect(canceled.body.runtimeSeconds).toBeGreaterThanOrEqual(1);
    const after = (await local.api.call("GET", `/v1/jobs/${id}/tasks`)).body.data;
    expect(after.some((t: any) => t.status === "running")).toBe(false);
    // What each task says when one does not (a CI run under load once saw another reason, not kept).
    expect(
      after.filter((t: any) => t.status === "failed").every((t: any) => /stopped/.test(t.errorMessage)),
      JSON.stringify(after.map((t: any) => [t.name, t.status, t.errorCode, t.errorMessage])),
    ).toBe(true);
    // Only a finished segment had a work file (a task stores its file as it ends).
    const finished = after.filter((t: any) => t.kind === "segment" && t.status === "completed");
    expect(finished.length).toBeGreaterThanOrEqual(1);
    for (const t of finished) expect(await stored(`work/${id}/${t.name}.ts`), t.name).toBe(false);
  });
});
