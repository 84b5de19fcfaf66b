import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../src/services.ts";
import { createRunnerClient } from "../../src/runner/runner-client.ts";
import { tickSplitJob } from "../../src/jobs/split/tick-split-job.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { claimTask, listTasks } from "../../src/jobs/split/task-store.ts";
import { MAX_SPLIT_SEGMENTS } from "../../src/jobs/split/split-tasks.ts";
import type { SplitFacts } from "../../src/jobs/split/split-facts.ts";
import type { BudgetedD1 } from "../../src/storage/d1-query-budget.ts";
import { createAccount, insertQueuedJob, mediaUrl } from "./helpers.ts";
import { plannedSplitJob, splitTick } from "./split-fixtures.ts";
import { taskRequest } from "../../src/jobs/split/task-requests.ts";
import { splitShape } from "../../src/jobs/split/split-eligibility.ts";
import type { JobSpec } from "../../src/jobs/request/job-request.ts";
import type { RunnerProbeRequest } from "../../src/runner/runner-protocol.ts";
import { tasksView } from "../../src/jobs/split/task-view.ts";

/**
 * A split job is planned from what its input's probe says: a file may claim any length.
 * A runner double answers the probe with the facts a lying file gives ffprobe (its Duration element);
 * every other call answers "busy", so the tick plans and stops there. The tick runs under the tests'
 * D1 limit per invocation (1,000 queries, as on the platform).
 */
let accountId: string;
beforeAll(async () => {
  ({ accountId } = await createAccount());
});

const facts = (lengthSeconds: number, frameRate: string | null = "25/1"): SplitFacts => ({
  format: "matroska,webm",
  formatStartSeconds: 0,
  formatDurationSeconds: lengthSeconds,
  video: { startSeconds: 0, durationSeconds: null, frameRate: frameRate as string },
  hasAudio: true,
  videoStreams: 1,
  audioStreams: 1,
});

async function runningSplitJob(fileName = "out.mp4"): Promise<string> {
  const id = await insertQueuedJob(accountId, {
    args: ["-i", "{{video}}", "-c:v", "libx264", "-c:a", "aac", "{{out}}"],
    inputs: { video: { type: "url", url: mediaUrl("clip.mp4") } },
    outputs: { out: { fileName, contentType: "video/mp4" } },
    parallel: { segmentSeconds: 5, maxWorkers: 4 },
  } as Parameters<typeof insertQueuedJob>[1]);
  const now = new Date().toISOString();
  await env.DB.prepare(
    "UPDATE jobs SET status = 'running', attempts = 1, dispatched_at = ?2, started_at = ?2 WHERE id = ?1",
  )
    .bind(id, now)
    .run();
  return id;
}

/**
 * One tick with a runner whose probe says `split` of the input, and answers a scan of the cuts with
 * `scanned` (by default as a probe without one); counts the probes and the D1 queries, keeps their bodies.
 */
async function tick(id: string, split: SplitFacts, scanned?: (request: RunnerProbeRequest) => Response) {
  const probes: string[] = [];
  const bodies: RunnerProbeRequest[] = [];
  const runner = createRunnerClient({
    prepare: async () => null,
    fetch: async (_job, path, init) => {
      if (path !== "/probe") return new Response("busy", { status: 503 });
      probes.push(path);
      const body = JSON.parse(String(init?.body)) as RunnerProbeRequest;
      bodies.push(body);
      if (body.sceneScan && scanned) return scanned(body);
      return Response.json({
        inputs: {
          video: { ok: true, metadata: null, durationSeconds: split.formatDurationSeconds, split, media: null },
        },
      });
    },
    release: async () => {},
    timeouts: { startMs: 1000, callMs: 1000 },
  });
  const s = { ...createServices(env), runner };
  const step = await tickSplitJob(s, (await getJob(env.DB, id))!, { jobId: id, phase: "split", misses: 0 });
  return { step, probes, bodies, queries: (s.db as BudgetedD1).queries() };
}

describe("a split job's plan, whatever its input claims", () => {
  it("caps the segments: a 30 s file that claims 100,000 s plans at most MAX_SPLIT_SEGMENTS longer segments, within one tick's D1 queries, and says so", async () => {
    const id = await runningSplitJob();
    const { step, queries } = await tick(id, facts(1e5));
    expect(step).toHaveProperty("state");
    expect(queries).toBeLessThan(1000);
    const tasks = await listTasks(env.DB, id);
    const segments = tasks.filter((t) => t.params.kind === "segment");
    expect(segments.length).toBeLessThanOrEqual(MAX_SPLIT_SEGMENTS);
    expect(segments.length).toBeGreaterThan(MAX_SPLIT_SEGMENTS - 2);
    const join = tasks.find((t) => t.params.kind === "join")!;
    expect(join.params).toMatchObject({
      kind: "join",
      segments: segments.length,
      note: expect.stringMatching(/20000 segments; a split has at most 256, so its segments are 390\.625 s/),
    });
    expect(segments[1].params).toMatchObject({ segment: { startSeconds: 390.625, endSeconds: 781.25 } });
  });

  it("runs whole, saying why, an input that claims an absurd length (10^12 s)", async () => {
    const id = await runningSplitJob();
    const { step } = await tick(id, facts(1e12));
    expect(step).toHaveProperty("state");
    const tasks = await listTasks(env.DB, id);
    expect(tasks).toHaveLength(1);
    expect(tasks[0].params).toMatchObject({
      kind: "whole",
      reason: expect.stringMatching(/claims a video of 1\.000e\+12 s .* at most 604800 s/),
    });
  });

  it("fails the job once, SPLIT_PLAN_FAILED and uncharged, when the probe's answer cannot be planned, instead of probing again every tick", async () => {
    // A Matroska output keeps the input's frame rate out of the cut; a probe with no rate at all breaks the plan's frame estimate.
    const id = await runningSplitJob("out.mkv");
    const { step, probes } = await tick(id, facts(60, null));
    expect(step, JSON.stringify(await listTasks(env.DB, id))).toEqual({ done: true });
    expect(probes).toHaveLength(1);
    expect(await getJob(env.DB, id)).toMatchObject({
      status: "failed",
      error_code: "SPLIT_PLAN_FAILED",
      credits_charged: 0,
    });
    expect((await getJob(env.DB, id))!.error_message).toMatch(/could not be planned/);
  });
});

describe("a split job's cuts, placed by the runner's scan", () => {
  const cutScan = (keyframesSeconds: number[]) => ({
    scene: null,
    keyframes: keyframesSeconds.map((atSeconds) => ({ atSeconds, beforeSeconds: atSeconds - 0.04 })),
  });

  it("asks the runner about the planned cuts, then moves them where it found keyframes, and says so in the tasks", async () => {
    const id = await runningSplitJob();
    const { bodies } = await tick(id, facts(20), () =>
      Response.json({
        inputs: {
          video: {
            ok: true,
            metadata: null,
            durationSeconds: 20,
            split: facts(20),
            media: null,
            // A keyframe 0.8 s before the cut at 10 s; none near 5 s; one out of the window (3 s) near 15.
            cutScans: [cutScan([]), cutScan([9.2]), cutScan([18])],
          },
        },
      }),
    );
    // The first probe measures the video's end; the second asks about the cuts, within a quarter segment.
    expect(bodies.map((b) => [b.measureVideoEnd ?? null, b.sceneScan ?? null])).toEqual([
      [true, null],
      [null, { cutsSeconds: [5, 10, 15], windowSeconds: 1.25, formatStartSeconds: 0, budgetMs: 1000 }],
    ]);
    const segments = (await listTasks(env.DB, id)).flatMap((t) =>
      t.params.kind === "segment" ? [t.params.segment] : [],
    );
    expect(segments.map((s) => [s.startSeconds, s.endSeconds, s.keyframeSeconds ?? null])).toEqual([
      [0, 5, null],
      [5, 229.6 / 25, null],
      [229.6 / 25, 15, 9.2],
      [15, null, null],
    ]);
    const views = tasksView(await listTasks(env.DB, id));
    expect(views.find((v) => v.name === "segment-2")!.reason).toBe(
      "its cut moved from 10.000 s to 9.184 s, before the keyframe at 9.200 s",
    );
    expect(views.find((v) => v.name === "segment-1")!.reason).toBeNull();
  });

  it("plans as before when the scan could not read the input, and tries again at the next tick when the runner is busy", async () => {
    const id = await runningSplitJob();
    const { bodies } = await tick(id, facts(20), () =>
      Response.json({ inputs: { video: { ok: false, error: "ffprobe could not read it as media" } } }),
    );
    expect(bodies).toHaveLength(2);
    const segments = (await listTasks(env.DB, id)).flatMap((t) =>
      t.params.kind === "segment" ? [t.params.segment] : [],
    );
    expect(segments.map((s) => s.startSeconds)).toEqual([0, 5, 10, 15]);

    const busy = await runningSplitJob();
    await tick(busy, facts(20), () => new Response("busy", { status: 503 }));
    expect(await listTasks(env.DB, busy)).toEqual([]);
  });
});

describe("a segment's seams report", () => {
  const segmentRequest = async (id: string) =>
    taskRequest(
      createServices(env),
      (await getJob(env.DB, id))!,
      (await listTasks(env.DB, id)).find((t) => t.name === "segment-1")!,
      crypto.randomUUID(),
      60_000,
    );

  it("is asked of a segment on a constant grid: its edges split off into a scratch file named apart from its input", async () => {
    const id = await plannedSplitJob(accountId, { segmentSeconds: 5, maxWorkers: 4 });
    const request = await segmentRequest(id);
    expect(request.task).toMatchObject({
      kind: "segment",
      seams: { output: "work", scratch: "edges", windows: { head: true, tailFrom: 125 - 8 } },
    });
    expect(request.scratch).toEqual([{ name: "edges", fileName: "edges.mkv" }]);
    expect(request.args.join(" ")).toContain("split[enc][edge]");
  });

  it("is not asked where the job's filters hold a quote, an escape, a label or a second chain (they could take in what follows)", async () => {
    const eligible: string[] = [];
    for (const vf of ["drawbox=c='red", "drawbox=c=red\\@0.5", "scale=320:-2;[x]null", "[in]scale=320:-2"]) {
      const args = ["-i", "{{video}}", "-vf", vf, "-c:v", "libx264", "-an", "{{out}}"];
      // Only what a split takes: its eligibility refuses the rest at creation.
      const spec = { binary: "ffmpeg", args, inputs: { video: { type: "url", url: "https://x.example/v.mp4" } } };
      if (
        !(
          "shape" in
          splitShape({
            ...spec,
            outputs: { out: { fileName: "out.mp4", contentType: "video/mp4" } },
            webhookUrl: null,
          } as JobSpec)
        )
      )
        continue;
      eligible.push(vf);
      const id = await plannedSplitJob(accountId, { segmentSeconds: 5, maxWorkers: 4 }, { args });
      const request = await segmentRequest(id);
      expect(request.task?.seams, vf).toBeUndefined();
      expect(request.scratch, vf).toBeUndefined();
      expect(request.args, vf).toContain("-vf");
    }
    // An unclosed quote is one ffmpeg's -vf takes (one run of it completes).
    expect(eligible).toContain("drawbox=c='red");
  });
});

describe("a task's claim", () => {
  it("takes a pending task only while its job runs: a tick racing a cancel starts nothing the cancel would leave running", async () => {
    const id = await plannedSplitJob(accountId, { segmentSeconds: 5, maxWorkers: 4 });
    const [first, second] = (await listTasks(env.DB, id)).filter((t) => t.status === "pending");
    expect(await claimTask(env.DB, id, first, crypto.randomUUID(), new Date().toISOString())).toBe(true);
    await env.DB.prepare("UPDATE jobs SET status = 'canceled', finished_at = ?2 WHERE id = ?1")
      .bind(id, new Date().toISOString())
      .run();
    expect(await claimTask(env.DB, id, second, crypto.randomUUID(), new Date().toISOString())).toBe(false);
    const after = await listTasks(env.DB, id);
    expect(after.find((t) => t.name === second.name)!.status).toBe("pending");
  });
});

describe("a segment that encodes nothing", () => {
  it("is done, empty (the file has no frame in its span, as one run has none there), and the join leaves it out", async () => {
    const id = await plannedSplitJob(accountId, { segmentSeconds: 5, maxWorkers: 4 });
    await splitTick(id);
    const emptyRunner = (await listTasks(env.DB, id)).find((t) => t.name === "segment-3")!.runnerId!;
    const now = new Date().toISOString();
    const empty = {
      status: "failed",
      exitCode: 0,
      runtimeMs: 400,
      errorCode: "OUTPUT_EMPTY",
      errorMessage: 'Output "work" (segment-3.ts) is empty',
      stdout: "",
      stderrTail: "",
      outputs: [],
      timings: { fetchMs: 0, runMs: 400, storeMs: 0 },
      finishedAt: now,
    };
    const { step } = await splitTick(id, {
      answer: (rid) =>
        rid === emptyRunner
          ? { jobId: rid, state: "finished", startedAt: now, progress: null, outcome: empty }
          : undefined,
    });
    expect(step).toHaveProperty("state");
    const tasks = await listTasks(env.DB, id);
    expect(tasks.find((t) => t.name === "segment-3")).toMatchObject({
      status: "completed",
      runtimeMs: 400,
      result: { outputs: [] },
    });
    expect((await getJob(env.DB, id))!.status).toBe("running");
    // Every other segment done with its work file: the join reads those, in order, and not segment-3's.
    await env.DB.prepare(`UPDATE job_tasks SET status = 'completed', result_json = '{"outputs":[{"name":"work","size":1}],"timings":{"fetchMs":0,"runMs":1,"storeMs":0},"finishedAt":"${now}"}'
      WHERE job_id = ?1 AND name LIKE 'segment-%' AND name <> 'segment-3'`)
      .bind(id)
      .run();
    const join = (await listTasks(env.DB, id)).find((t) => t.name === "join")!;
    const request = await taskRequest(
      createServices(env),
      (await getJob(env.DB, id))!,
      join,
      crypto.randomUUID(),
      60_000,
    );
    const parts = request.inputs.map((i) => /work\/[^/]+\/(segment-\d+)\.ts/.exec(decodeURIComponent(i.url))?.[1]);
    expect(parts).toEqual([
      "segment-0",
      "segment-1",
      "segment-2",
      ...Array.from({ length: 8 }, (_, i) => `segment-${i + 4}`),
    ]);
    // Its seams checked: no gap, no repeat.
    expect(request.outputs[0].checks).toEqual({ readable: true, continuity: { maxGapFrames: 1.5 } });
    // Each segment's runner checks its frame count: 5 s at 25/1 is 125 slots, exactly, in a middle one.
    const segment = (await listTasks(env.DB, id)).find((t) => t.name === "segment-4")!;
    const segmentRequest = await taskRequest(
      createServices(env),
      (await getJob(env.DB, id))!,
      segment,
      crypto.randomUUID(),
      60_000,
    );
    expect(segmentRequest.outputs[0].checks).toEqual({ frameCount: { min: 125, max: 125 } });
  });

  it("fails the job OUTPUT_EMPTY when every segment is empty", async () => {
    const id = await plannedSplitJob(accountId, { segmentSeconds: 5, maxWorkers: 4 });
    await env.DB.prepare(
      `UPDATE job_tasks SET status = 'completed', result_json = '{"outputs":[],"timings":{"fetchMs":0,"runMs":1,"storeMs":0},"finishedAt":"x"}' WHERE job_id = ?1 AND name LIKE 'segment-%'`,
    )
      .bind(id)
      .run();
    expect((await splitTick(id)).step).toEqual({ done: true });
    expect(await getJob(env.DB, id)).toMatchObject({ status: "failed", error_code: "OUTPUT_EMPTY" });
  });
});
