import { readSettings } from "../../container/src/settings.ts";
import type { RunnerJobRequest, RunnerJobStatus, RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { newRunnerSecret, RUNNER_SECRET_HEADER } from "../../src/runner/runner-secret.ts";

/** Speaks the runner protocol over HTTP, as the coordinator does (with the runner's secret). */
export function runnerApi(runner: { url: string; secret: string }) {
  const base = runner.url;
  const auth = { [RUNNER_SECRET_HEADER]: runner.secret };
  return {
    async submit(req: RunnerJobRequest): Promise<Response> {
      return fetch(`${base}/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json", ...auth },
        body: JSON.stringify(req),
      });
    },
    async status(jobId: string): Promise<RunnerJobStatus | null> {
      const r = await fetch(`${base}/jobs/${jobId}`, { headers: auth });
      return r.status === 404 ? null : ((await r.json()) as RunnerJobStatus);
    },
    async cancel(jobId: string): Promise<RunnerJobStatus> {
      return (
        await fetch(`${base}/jobs/${jobId}/cancel`, { method: "POST", headers: auth })
      ).json() as Promise<RunnerJobStatus>;
    },
    /** Any other call, authorized. */
    fetch(path: string, init: RequestInit = {}): Promise<Response> {
      return fetch(`${base}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), ...auth } });
    },
    async waitFor(jobId: string, pred: (s: RunnerJobStatus) => boolean, timeoutMs = 30_000): Promise<RunnerJobStatus> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await this.status(jobId);
        if (s && pred(s)) return s;
        if (Date.now() > deadline) throw new Error(`runner job ${jobId} never matched; last: ${JSON.stringify(s)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

export function jobRequest(over: Partial<RunnerJobRequest>): RunnerJobRequest {
  return {
    jobId: crypto.randomUUID(),
    binary: "ffmpeg",
    args: [],
    inputs: [],
    outputs: [],
    timeoutMs: 30_000,
    allowedPrivateHosts: ["127.0.0.1"],
    createdAt: new Date().toISOString(),
    leaseMs: 60_000,
    notifyUrl: null,
    ...over,
  };
}

/** A job manager of one slot whose jobs a test runs itself (no ffmpeg), and the outcome they end with. */
export const oneSlotSettings = () =>
  readSettings({ RUNNER_CONTROL_SECRET: newRunnerSecret(), RUNNER_CONCURRENCY: "1" });
export const completedOutcome: RunnerOutcome = {
  status: "completed",
  exitCode: 0,
  runtimeMs: 5,
  errorCode: null,
  errorMessage: null,
  stdout: "",
  stderrTail: "",
  outputs: [],
  timings: { fetchMs: 0, runMs: 5, storeMs: 0 },
  finishedAt: new Date().toISOString(),
};
