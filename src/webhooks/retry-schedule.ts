/**
 * When a failed delivery is tried again. The default spans about 21 hours over 8 attempts:
 * 5 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h after each failure. 12 h is also the longest delay a
 * queue message can take.
 */
export const DEFAULT_RETRY_DELAYS_SECONDS = [5, 60, 300, 1800, 7200, 21600, 43200];
export const MAX_QUEUE_DELAY_SECONDS = 43200;
/** ±10 %, so receivers that failed together are not all retried in the same second. */
const JITTER_FRACTION = 0.1;

/** Delay before attempt `attempt + 1`, or null when `attempt` was the last one. */
export function retryDelaySeconds(
  attempt: number,
  schedule: readonly number[],
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  const jittered = base * (1 + JITTER_FRACTION * (2 * random() - 1));
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.round(jittered)));
}

export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}
