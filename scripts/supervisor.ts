import type { ChildProcess } from "node:child_process";

/** How long children get to exit (wrangler removes its containers) before they are killed. */
const STOP_GRACE_MS = 15_000;
/** A restarted child that dies this many times within RESTART_WINDOW_MS is not restarted again. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
const RESTART_DELAY_MS = 500;

/**
 * The dev launcher's children: each is either essential (its exit stops everything) or restarted
 * when it dies (and the launcher says so). Stopping waits for every child to exit, so the ports are
 * free when the launcher ends.
 */
export function createSupervisor(log: (message: string) => void) {
  const running = new Set<ChildProcess>();
  let stopping = false;

  async function stopAll(code: number): Promise<never> {
    if (!stopping) {
      stopping = true;
      const alive = [...running].filter((c) => c.exitCode === null && c.signalCode === null);
      const exited = Promise.all(alive.map((c) => new Promise((r) => c.once("exit", r))));
      for (const child of alive) child.kill("SIGTERM");
      const grace = setTimeout(() => {
        for (const c of alive) c.kill("SIGKILL");
      }, STOP_GRACE_MS);
      await exited;
      clearTimeout(grace);
      process.exit(code);
    }
    return new Promise<never>(() => {});
  }

  function track(child: ChildProcess): ChildProcess {
    running.add(child);
    child.once("exit", () => running.delete(child));
    return child;
  }

  /** A child whose exit stops everything. */
  function essential(name: string, child: ChildProcess): void {
    track(child).once("exit", (code, signal) => {
      if (stopping) return;
      log(`${name} exited (${signal ?? code}); stopping.`);
      void stopAll(code || 1);
    });
  }

  /** A child started again whenever it dies, unless it keeps dying. */
  function restarted(name: string, start: () => ChildProcess): void {
    const deaths: number[] = [];
    const launch = () => {
      const child = track(start());
      log(`${name} started (pid ${child.pid})`);
      child.once("exit", (code, signal) => {
        if (stopping) return;
        const now = Date.now();
        deaths.push(now);
        while (deaths.length && deaths[0] < now - RESTART_WINDOW_MS) deaths.shift();
        if (deaths.length >= MAX_RESTARTS) {
          log(`${name} died ${deaths.length} times in a minute; stopping.`);
          return void stopAll(1);
        }
        log(`${name} exited (${signal ?? code}); restarting it`);
        setTimeout(launch, RESTART_DELAY_MS);
      });
    };
    launch();
  }

  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  return { essential, restarted, stopAll };
}
