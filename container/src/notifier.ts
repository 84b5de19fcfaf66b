import { RUNNER_SECRET_HEADER } from "../../src/runner/runner-secret.ts";

/** A notification that fails is not retried: the coordinator's own polls are the safety net. */
const NOTIFY_TIMEOUT_MS = 2_000;
/** Progress is worth a look at most this often. */
export const PROGRESS_NOTIFY_INTERVAL_MS = 1_000;

/**
 * Tells a job's coordinator to look now (the body is empty: the coordinator asks the runner what
 * changed). `now` for state changes, `throttled` for progress.
 */
export function createNotifier(
  url: string | null,
  secret: string,
  send: (url: string, secret: string) => Promise<unknown> = postNotification,
) {
  let lastMs = 0;
  let scheduled: ReturnType<typeof setTimeout> | null = null;
  const fire = () => {
    if (!url) return;
    lastMs = Date.now();
    if (scheduled) clearTimeout(scheduled);
    scheduled = null;
    void send(url, secret).catch(() => {});
  };
  return {
    now: fire,
    throttled() {
      if (!url || scheduled) return;
      const wait = lastMs + PROGRESS_NOTIFY_INTERVAL_MS - Date.now();
      if (wait <= 0) fire();
      else scheduled = setTimeout(fire, wait);
    },
  };
}

/**
 * One notification, answering the status (the platform report sends one the same way). The secret
 * proves the call is the runner's (a local Worker's internal route asks for it).
 */
export async function postNotification(url: string, secret: string): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: { [RUNNER_SECRET_HEADER]: secret },
    signal: AbortSignal.timeout(NOTIFY_TIMEOUT_MS),
  });
  await res.body?.cancel();
  return res.status;
}
