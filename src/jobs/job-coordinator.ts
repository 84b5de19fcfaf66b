import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.ts";
import { createServices, type Services } from "../services.ts";
import { startJob, type StartResult } from "./start-job.ts";
import { cancelRunningJob, superviseJob, type WatchState } from "./supervise-job.ts";

/**
 * One per job (named by the job id). Starts the job on its runner, then watches it with an alarm
 * until it ends. A thin adapter: the decisions live in start-job.ts and supervise-job.ts.
 */
export class JobCoordinator extends DurableObject<Env> {
  #services: Services | null = null;

  protected get services(): Services {
    this.#services ??= createServices(this.env);
    return this.#services;
  }

  async start(jobId: string): Promise<StartResult> {
    const result = await startJob(this.services, jobId);
    if (result === "started") {
      await this.ctx.storage.put({ jobId, watch: { misses: 0 } satisfies WatchState });
      await this.ctx.storage.setAlarm(Date.now() + this.services.config.runnerPollIntervalMs);
    }
    return result;
  }

  async cancel(jobId: string): Promise<boolean> {
    return cancelRunningJob(this.services, jobId);
  }

  async alarm(): Promise<void> {
    const jobId = await this.ctx.storage.get<string>("jobId");
    if (!jobId) return;
    const watch = (await this.ctx.storage.get<WatchState>("watch")) ?? { misses: 0 };
    const step = await superviseJob(this.services, jobId, watch);
    if (step.done) {
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.ctx.storage.put("watch", step.state);
    await this.ctx.storage.setAlarm(Date.now() + this.services.config.runnerPollIntervalMs);
  }
}
