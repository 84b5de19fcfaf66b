import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../env.ts";
import { createServices, type Services } from "../../services.ts";
import { countEachInvocation } from "../../platform/counted-durable-object.ts";
import { getJob } from "../store/job-store.ts";
import type { JobRow } from "../store/job-row.ts";
import { MAX_FOLLOW_WAIT_MS, type RunnerJobStatus } from "../../runner/runner-protocol.ts";
import { FOLLOW_WINDOW_MS, followRunner } from "./follow-runner.ts";
import { JobWaiters } from "./job-waiters.ts";
import { isTerminal } from "../transitions/job-states.ts";
import { tickJob, firstTickState } from "./tick-job.ts";
import type { TickState } from "./tick-state.ts";
import { cancelJob } from "./cancel-job.ts";
import { alarmDelayMs, TICK_ERROR_RETRY_MS } from "./retry-policy.ts";
import { withProgress, withStatus, type JobSnapshot, type TickNews } from "./tick-news.ts";

/** Where a coordinator keeps its TickState. The name is older than the word "tick": coordinators alive across a deploy keep theirs. */
const TICK_STATE_KEY = "drive";

/**
 * One per job (named by the job id): ticks the job from queued to terminal, one tick at a time
 * (src/jobs/lifecycle/tick-job.ts), never two at once: at its start, when its runner notifies it, and at its
 * alarm. The alarm is armed before anything about the job changes and re-armed by every tick until
 * the job is terminal, so a crash at any point leaves a pending alarm (or, if even that was lost,
 * the sweeper re-sends the job and `start` re-arms it).
 */
export class JobCoordinator extends DurableObject<Env> {
  // Each event (an RPC call, an alarm) is an invocation with its own limits; a tick it starts is charged to it.
  static {
    countEachInvocation(JobCoordinator);
  }

  /** The tick under way (ticks never overlap) and the one queued behind it, if any. */
  #running: Promise<void> = Promise.resolve();
  /** Ticks under way or waiting to run: a row read now is fresh enough for a tick only when there are none. */
  #pending = 0;
  #queued: Promise<void> | null = null;
  /** Clients waiting (in this instance's memory) for the next tick, or for the job's end. */
  #waiters = new JobWaiters();
  /**
   * The job's status and latest progress as this coordinator's ticks saw them: event streams, waits
   * and GET read them here instead of D1 (which gets progress only every PROGRESS_SAVE_INTERVAL_MS).
   */
  #snapshot: JobSnapshot | null = null;
  /** Until when (epoch ms) this instance follows its job on the runner (follow-runner.ts); 0: it does not. */
  #followUntilMs = 0;
  #following = false;
  #followed = new Set<string>();
  /** When (epoch ms) the runner last notified this instance: a watch tick's alarm goes later while it speaks. */
  #runnerSpokeAtMs = 0;

  /** Services for one tick, start or cancel, charged to the invocation that asked for it. */
  protected newServices(): Services {
    return createServices(this.env);
  }

  #services(): Services {
    return {
      ...this.newServices(),
      // Waiting clients are woken the moment the job is terminal, before its runner is released.
      onJobEnded: () => this.#waiters.ended(),
      onProgress: (progress, at) => {
        this.#snapshot = withProgress(progress, at);
      },
      onStatus: (status) => {
        this.#snapshot = withStatus(this.#snapshot, status);
      },
    };
  }

  /**
   * Makes sure the job is ticking: a no-op while it already is. Safe to call any number of times.
   * `inserted`: the row its creator just wrote, which saves reading it back (src/api/routes/jobs.ts).
   */
  async start(jobId: string, inserted?: JobRow): Promise<"ticking" | "finished"> {
    const storage = this.ctx.storage;
    const s = this.#services();
    const known = await storage.get<TickState>(TICK_STATE_KEY);
    const alarm = await storage.getAlarm();
    // An alarm long overdue did not fire (the platform lost it, say in a restart): arm it anew.
    if (known && alarm !== null && alarm > Date.now() - s.config.stalledJobMs) return "ticking";
    const job = inserted?.id === jobId ? inserted : await getJob(s.db, jobId);
    if (!job || isTerminal(job.status)) return "finished";
    await storage.put(TICK_STATE_KEY, known ?? firstTickState(job));
    // The alarm first, as the safety net; then the first tick at once, not at the alarm's pace, from the row in hand.
    await storage.setAlarm(Date.now() + s.config.runnerPollIntervalMs);
    void this.#tickSoon(job);
    return "ticking";
  }

  /** The runner says something changed: look now instead of at the next poll. */
  async notify(): Promise<void> {
    this.#runnerSpokeAtMs = Date.now();
    if (await this.ctx.storage.get<TickState>(TICK_STATE_KEY)) void this.#tickSoon();
  }

  async cancel(jobId: string): Promise<boolean> {
    try {
      return await cancelJob(this.#services(), jobId);
    } finally {
      this.#waiters.wake(true);
    }
  }

  /**
   * An event stream's news for as long as it stays open: a line of JSON (TickNews) each time this
   * coordinator looks at the job, with what it knows then, or after `idleMs` without a look (not
   * woken), until the job ends. One call however long the job runs, where a call per tick would be a
   * subrequest per tick of the stream's one invocation (src/platform/invocation-budget.ts).
   */
  async tickFeed(idleMs: number): Promise<ReadableStream<Uint8Array>> {
    const encoder = new TextEncoder();
    let gone = false;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const { woken, ended } = await this.#waiters.nextTick(idleMs);
          // The stream's client went away while this line was awaited.
          if (gone) return;
          const news: TickNews = { woken, ended, snapshot: this.#snapshot };
          controller.enqueue(encoder.encode(`${JSON.stringify(news)}\n`));
          if (ended) controller.close();
        },
        cancel: () => {
          gone = true;
        },
      },
      // Nothing waits ahead of the reader: each line is the news of the moment it was asked for.
      { highWaterMark: 0 },
    );
  }

  /** The job's status and latest progress as this coordinator last saw them; null if it has not ticked since it started. */
  async snapshot(): Promise<JobSnapshot | null> {
    return this.#snapshot;
  }

  /**
   * Resolves true when this coordinator ends the job (long-poll waits), false after `timeoutMs`; at once
   * if it already has.
   */
  async waitForEnd(timeoutMs: number): Promise<boolean> {
    return this.#waiters.end(timeoutMs);
  }

  /**
   * In the job's first minute on its runner: one held status call at a time, until the job leaves the
   * runner's line (while queued here) or finishes; the answer starts a tick with it in hand.
   */
  #follow(state: TickState): void {
    const leftMs = this.#followUntilMs - Date.now();
    if (this.#following || state.phase !== "watch" || leftMs <= 0) return;
    const until = this.#snapshot?.status === "running" ? "finished" : "started";
    // Each `until` is followed to its answer once: a row that did not move on cannot make it a loop.
    if (this.#followed.has(until)) return;
    this.#following = true;
    const waitMs = Math.min(MAX_FOLLOW_WAIT_MS, leftMs);
    void followRunner(this.#services().runner, state.jobId, { until, waitMs }).then((found) => {
      this.#following = false;
      if (found === "again") this.#follow(state);
      else if (found) {
        this.#followed.add(until);
        void this.#tickSoon(undefined, found);
      }
    });
  }

  async alarm(): Promise<void> {
    await this.#tickSoon();
  }

  /**
   * One tick after the one under way; a tick already waiting to run answers this request too.
   * `known`, `runnerStatus`: the job's row, and its runner's answer, fresh enough for the tick to start
   * from (only when no tick is under way).
   */
  #tickSoon(known?: JobRow, runnerStatus?: RunnerJobStatus): Promise<void> {
    if (this.#queued) return this.#queued;
    const idle = this.#pending === 0;
    this.#pending++;
    const next = this.#running.then(() => {
      this.#queued = null;
      return idle ? this.#tick(known, runnerStatus) : this.#tick();
    });
    this.#queued = next;
    this.#running = next.catch(() => {}).finally(() => this.#pending--);
    return next;
  }

  async #tick(known?: JobRow, runnerStatus?: RunnerJobStatus): Promise<void> {
    const storage = this.ctx.storage;
    const state = await storage.get<TickState>(TICK_STATE_KEY);
    if (!state) return;
    try {
      const step = await tickJob(this.#services(), state, known, runnerStatus);
      if (step.done) this.#waiters.ended();
      else this.#waiters.wake(false);
      if (step.done) return await storage.deleteAll();
      await storage.put(TICK_STATE_KEY, step.state);
      await storage.setAlarm(Date.now() + alarmDelayMs(step, Date.now() - this.#runnerSpokeAtMs));
      if (state.phase === "dispatch" && step.state.phase === "watch") {
        this.#followUntilMs = Date.now() + FOLLOW_WINDOW_MS;
        this.#followed.clear();
      }
      this.#follow(step.state);
    } catch (err) {
      console.error(`job ${state.jobId}: coordinator tick failed; trying again`, err);
      await storage.setAlarm(Date.now() + TICK_ERROR_RETRY_MS);
    }
  }
}
