// Waiting out a first deploy's cold start. Cloudflare notes that requests to a new container
// application can fail for several minutes after its first deploy while the image reaches its
// locations; in that window the runner is unreachable (503 RUNNER_UNAVAILABLE from the API, or a job
// that fails RUNNER_UNAVAILABLE / RUNNER_LOST after its three attempts). Such failures are retried,
// with a message saying why, within a bounded total wait; any other failure ends the smoke test at once.

/** A failure that waiting may cure (the runner is not reachable yet). */
export class NotReadyYet extends Error {}

export type Clock = { now: () => number; sleep: (ms: number) => Promise<void> };

export const realClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export type Patience = { budgetMs: number; retryEveryMs: number; clock: Clock; log: (line: string) => void };

/** Codes of infrastructure faults: the job never got a working runner (never charged). */
export const RUNNER_FAULT_CODES = ["RUNNER_UNAVAILABLE", "RUNNER_LOST"];

/**
 * Runs `attempt` until it succeeds, retrying NotReadyYet every `retryEveryMs` while the total time since
 * `startedAt` stays within `budgetMs` (one budget shared by every step of a smoke test).
 */
export async function untilReady<T>(
  what: string,
  attempt: () => Promise<T>,
  startedAt: number,
  p: Patience,
): Promise<T> {
  let explained = false;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof NotReadyYet)) throw err;
      const waited = p.clock.now() - startedAt;
      if (waited + p.retryEveryMs > p.budgetMs) {
        throw new Error(
          `${what}: the service was still not ready after ${minutes(waited)} (${err.message}). If this is a first deploy, try \`npm run smoke\` again in a few minutes; otherwise see \`npx wrangler tail\` and the container logs in the dashboard.`,
        );
      }
      if (!explained) {
        p.log(
          `  containers are still starting: Cloudflare notes that container requests can fail for several minutes after a first deploy. Waiting up to ${minutes(p.budgetMs)} in all, retrying every ${Math.round(p.retryEveryMs / 1000)} s.`,
        );
        explained = true;
      }
      p.log(`  ${what}: not ready yet (${err.message}); waited ${minutes(waited)} of ${minutes(p.budgetMs)}`);
      await p.clock.sleep(p.retryEveryMs);
    }
  }
}

function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
}
