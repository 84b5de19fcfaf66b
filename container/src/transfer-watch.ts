/** How slow one request to a client's destination may be (settings.ts: RUNNER_DESTINATION_*). */
export type TransferLimits = {
  /** No byte taken by the connection and none answered for this long: the destination is gone. */
  idleMs: number;
  /** While the body goes out, at least this many bytes a second over every `windowMs` after the first. */
  minBytesPerSecond: number;
  windowMs: number;
};

export type TransferWatch = {
  /** Aborted when a limit is passed (or the deadline); `reason()` then says which. */
  signal: AbortSignal;
  /** Body bytes the connection took. */
  sent: (bytes: number) => void;
  /** The whole body was taken: from now on only the answer is waited for. */
  bodySent: () => void;
  /** Something of the answer arrived (its headers, a chunk of its body). */
  received: () => void;
  reason: () => string | null;
  close: () => void;
};

const MAX_CHECK_INTERVAL_MS = 1000;

/**
 * Watches one request to a client's storage, which a client may have made hostile: it may never
 * answer, trickle its answer, or take the body a byte at a time, each of which would hold a runner
 * slot (and, once, for 30 minutes). The request is aborted when neither direction moved
 * for `idleMs`, when the body goes out slower than the minimum over a window (after a first window
 * of grace, so a slow start is no failure), or at the job's deadline.
 */
export function watchTransfer(limits: TransferLimits, deadline: number, now: () => number = Date.now): TransferWatch {
  const controller = new AbortController();
  const startedAt = now();
  let lastProgressAt = startedAt;
  let sentBytes = 0;
  let bodyDone = false;
  let why: string | null = null;
  /** Bytes sent by each check's time, for the throughput over the last window. */
  const samples: { at: number; sent: number }[] = [{ at: startedAt, sent: 0 }];
  const stop = (reason: string) => {
    why ??= reason;
    clearInterval(timer);
    controller.abort(new Error(reason));
  };
  const check = () => {
    const t = now();
    if (t >= deadline) return stop("it had not finished when the job's time limit ran out");
    if (t - lastProgressAt >= limits.idleMs)
      return stop(`it took and answered nothing for ${seconds(limits.idleMs)} s`);
    samples.push({ at: t, sent: sentBytes });
    while (samples.length > 1 && samples[1].at <= t - limits.windowMs) samples.shift();
    const from = samples[0];
    if (!bodyDone && from.at <= t - limits.windowMs) {
      const rate = ((sentBytes - from.sent) * 1000) / (t - from.at);
      if (rate < limits.minBytesPerSecond)
        stop(
          `it took the upload slower than ${Math.round(limits.minBytesPerSecond / 1024)} KiB/s over ${seconds(limits.windowMs)} s`,
        );
    }
  };
  const timer = setInterval(
    check,
    Math.max(10, Math.min(MAX_CHECK_INTERVAL_MS, limits.idleMs / 4, limits.windowMs / 4)),
  );
  timer.unref?.();
  return {
    signal: controller.signal,
    sent: (bytes) => {
      sentBytes += bytes;
      lastProgressAt = now();
    },
    bodySent: () => {
      bodyDone = true;
      lastProgressAt = now();
    },
    received: () => {
      lastProgressAt = now();
    },
    reason: () => why,
    close: () => clearInterval(timer),
  };
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
