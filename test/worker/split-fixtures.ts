import { env } from "cloudflare:workers";
import { createServices, type Services } from "../../src/services.ts";
import { createRunnerClient } from "../../src/runner/runner-client.ts";
import { tickSplitJob } from "../../src/jobs/split/tick-split-job.ts";
import { getJob, jobSpecOf } from "../../src/jobs/store/job-store.ts";
import { insertTasks } from "../../src/jobs/split/task-store.ts";
import { planSplitTasks } from "../../src/jobs/split/split-tasks.ts";
import { splitShape } from "../../src/jobs/split/split-eligibility.ts";
import type { NextTick } from "../../src/jobs/lifecycle/tick-state.ts";
import { insertQueuedJob, mediaUrl } from "./helpers.ts";

/** A split job of 12 segments (a 60 s video in 5 s segments, no audio), running since `startedAt`, planned. */
export async function plannedSplitJob(
  accountId: string,
  parallel: { segmentSeconds: number; maxWorkers: number },
  extra: { timeoutSeconds?: number; startedAt?: string; args?: string[] } = {},
): Promise<string> {
  const id = await insertQueuedJob(accountId, {
    args: extra.args ?? ["-i", "{{video}}", "-c:v", "libx264", "-an", "{{out}}"],
    inputs: { video: { type: "url", url: mediaUrl("clip.mp4") } },
    outputs: { out: { fileName: "out.mp4", contentType: "video/mp4" } },
    parallel,
    ...(extra.timeoutSeconds ? { timeoutSeconds: extra.timeoutSeconds } : {}),
  } as Parameters<typeof insertQueuedJob>[1]);
  const started = extra.startedAt ?? new Date().toISOString();
  await env.DB.prepare(
    "UPDATE jobs SET status = 'running', attempts = 1, dispatched_at = ?2, started_at = ?2 WHERE id = ?1",
  )
    .bind(id, started)
    .run();
  const shape = splitShape(jobSpecOf((await getJob(env.DB, id))!));
  if (!("shape" in shape)) throw new Error("not a split job");
  const facts = {
    format: "mov,mp4,m4a,3gp,3g2,mj2",
    formatStartSeconds: 0,
    formatDurationSeconds: 60,
    video: { startSeconds: 0, durationSeconds: 60, frameRate: "25/1" },
    hasAudio: false,
    videoStreams: 1,
    audioStreams: 0,
  };
  await insertTasks(env.DB, id, planSplitTasks(facts, shape.shape, parallel));
  return id;
}

/**
 * One tick of a split job with a runner test double that takes every task and answers each status with
 * `answer(runnerJobId)` (by default: running). Records the runner ids it was handed.
 */
export async function splitTick(
  id: string,
  opts: { answer?: (runnerJobId: string) => unknown; now?: Date } = {},
): Promise<{ step: NextTick; started: string[] }> {
  const started: string[] = [];
  const running = (jobId: string) => ({
    jobId,
    state: "running",
    startedAt: new Date().toISOString(),
    progress: null,
    outcome: null,
  });
  const runner = createRunnerClient({
    prepare: async () => null,
    fetch: async (jobId, path, init) => {
      if (init?.method === "POST" && path === "/jobs") started.push(jobId);
      return Response.json(opts.answer?.(jobId) ?? running(jobId));
    },
    release: async () => {},
    timeouts: { startMs: 1000, callMs: 1000 },
  });
  const s: Services = { ...createServices(env), runner, ...(opts.now ? { now: () => opts.now! } : {}) };
  const step = await tickSplitJob(s, (await getJob(env.DB, id))!, { jobId: id, phase: "split", misses: 0 });
  return { step, started };
}
