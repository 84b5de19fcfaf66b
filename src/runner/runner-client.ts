import type { RunnerJobRequest, RunnerJobStatus } from "./runner-protocol.ts";
import { egressScopeOf, type EgressScope } from "./egress-scope.ts";

/**
 * The one seam between production and local development: how the coordinator reaches "the runner
 * for this job". Production: the job's own container instance. Local and tests: a runner process.
 */
export interface RunnerTransport {
  /** Called before the first request of a job: lets production scope the container's egress. */
  prepare(jobId: string, scope: EgressScope): Promise<void>;
  fetch(jobId: string, path: string, init?: RequestInit): Promise<Response>;
  /** The job is over: production revokes its egress (and ends a per-job container); locally nothing. */
  release(jobId: string): Promise<void>;
}

export class RunnerUnreachable extends Error {}

export type RunnerClient = ReturnType<typeof createRunnerClient>;

export function createRunnerClient(transport: RunnerTransport) {
  async function call(jobId: string, path: string, init?: RequestInit): Promise<Response> {
    try {
      return await transport.fetch(jobId, path, init);
    } catch (err) {
      throw new RunnerUnreachable(`runner unreachable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  async function statusFrom(res: Response): Promise<RunnerJobStatus | null> {
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) throw new RunnerUnreachable(`runner answered HTTP ${res.status}`);
    return (await res.json()) as RunnerJobStatus;
  }
  return {
    async start(req: RunnerJobRequest): Promise<RunnerJobStatus> {
      await transport.prepare(req.jobId, egressScopeOf(req));
      const res = await call(req.jobId, "/jobs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(req),
      });
      const status = await statusFrom(res);
      if (!status) throw new RunnerUnreachable("runner refused the job");
      return status;
    },
    /** null when the runner does not know the job (it restarted, or the report was collected). */
    status: (jobId: string) => call(jobId, `/jobs/${jobId}`).then(statusFrom),
    cancel: (jobId: string) => call(jobId, `/jobs/${jobId}/cancel`, { method: "POST" }).then(statusFrom),
    async release(jobId: string): Promise<void> {
      await call(jobId, `/jobs/${jobId}`, { method: "DELETE" }).then((r) => r.body?.cancel()).catch(() => {});
      await transport.release(jobId);
    },
  };
}

/** Local development and tests: one runner process on loopback serves every job. */
export function localTransport(baseUrl: string): RunnerTransport {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    prepare: async () => {},
    fetch: (_jobId, path, init) => fetch(`${base}${path}`, init),
    release: async () => {},
  };
}
