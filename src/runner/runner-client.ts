import type {
  RunnerCapabilities,
  RunnerFollow,
  RunnerJobRequest,
  RunnerJobStatus,
  RunnerProbeRequest,
  RunnerProbeResult,
} from "./runner-protocol.ts";
import { egressScopeOf, probeScopeOf, type EgressScope } from "./egress-scope.ts";
import { RUNNER_SECRET_HEADER } from "./runner-secret.ts";
import type { RunnerPlatformRequest } from "./platform-report.ts";

/** Whether a job's container had to start ("cold") or was already running ("warm"); null for a local runner. */
export type ContainerStart = "cold" | "warm";

/**
 * The one seam between production and local development: how the coordinator reaches "the runner
 * for this job". Production: a container instance. Local and tests: a runner process.
 */
export interface RunnerTransport {
  /** Called before the first request of a job: lets production scope the container's egress. */
  prepare(jobId: string, scope: EgressScope): Promise<ContainerStart | null>;
  fetch(jobId: string, path: string, init?: RequestInit): Promise<Response>;
  /** The job is over: production revokes its egress (and ends a per-job container); locally nothing. */
  release(jobId: string): Promise<void>;
  /** How long a hand-over (which may boot a container) and any other call may take before it counts as lost. */
  timeouts: { startMs: number; callMs: number };
}

export class RunnerUnreachable extends Error {}
/** The runner (or the platform, for containers) has no capacity for another job right now. */
export class RunnerBusy extends Error {}

export type RunnerClient = ReturnType<typeof createRunnerClient>;

/** A runner's cancel waits up to 10 s for the process to exit (container/src/job-manager.ts). */
const CANCEL_EXTRA_MS = 10_000;
/** A platform report's lookups and connection attempts run side by side, each bounded (container/src/platform-report.ts). */
const PLATFORM_REPORT_EXTRA_MS = 30_000;

export function createRunnerClient(transport: RunnerTransport) {
  async function call(jobId: string, path: string, init: RequestInit, timeoutMs: number): Promise<Response> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RunnerUnreachable(`runner did not answer ${path} within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([
        transport.fetch(jobId, path, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
        timeout,
      ]);
    } catch (err) {
      if (err instanceof RunnerUnreachable) throw err;
      throw new RunnerUnreachable(`runner unreachable: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }
  async function statusFrom(res: Response): Promise<RunnerJobStatus | null> {
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (res.status === 503 || res.status === 429) {
      await res.body?.cancel();
      throw new RunnerBusy(`runner answered HTTP ${res.status}`);
    }
    if (!res.ok) throw new RunnerUnreachable(`runner answered HTTP ${res.status}`);
    return (await res.json()) as RunnerJobStatus;
  }
  const { startMs, callMs } = transport.timeouts;
  return {
    async start(req: RunnerJobRequest): Promise<{ status: RunnerJobStatus; containerStart: ContainerStart | null }> {
      const containerStart = await transport.prepare(req.jobId, egressScopeOf(req));
      const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(req) };
      const status = await statusFrom(await call(req.jobId, "/jobs", init, startMs));
      if (!status) throw new RunnerUnreachable("runner refused the job");
      return { status, containerStart };
    },
    /**
     * null when the runner does not know the job (it restarted, or the report was collected). With
     * `follow`, held by the runner until the job reaches it or `follow.waitMs` passes (RunnerFollow).
     */
    status: async (jobId: string, follow?: RunnerFollow) =>
      statusFrom(
        follow
          ? await call(
              jobId,
              `/jobs/${jobId}?until=${follow.until}&waitMs=${follow.waitMs}`,
              {},
              callMs + follow.waitMs,
            )
          : await call(jobId, `/jobs/${jobId}`, {}, callMs),
      ),
    /** This client's runner holds a followed status call (a double that answers at once says nothing here). */
    follows: true as const,
    cancel: async (jobId: string) =>
      statusFrom(await call(jobId, `/jobs/${jobId}/cancel`, { method: "POST" }, callMs + CANCEL_EXTRA_MS)),
    /** What the runner's ffmpeg can do; asked of a runner of its own, which may reach nothing. */
    async capabilities(): Promise<RunnerCapabilities> {
      const id = crypto.randomUUID();
      await transport.prepare(id, { allow: [] });
      try {
        const res = await call(id, "/capabilities", {}, startMs);
        if (res.status === 503) throw new RunnerBusy("runner busy");
        if (!res.ok) throw new RunnerUnreachable(`runner answered HTTP ${res.status}`);
        return (await res.json()) as RunnerCapabilities;
      } finally {
        await transport.release(id).catch(() => {});
      }
    },
    /**
     * The platform report (src/runner/platform-report.ts), asked of a runner of its own whose egress lets
     * through only the report's own notification: any other request it makes must meet the Worker's refusal.
     * The answer is unchecked here: the caller parses it.
     */
    async platformReport(req: RunnerPlatformRequest): Promise<unknown> {
      await transport.prepare(req.reportId, { allow: req.notifyUrl ? [{ method: "POST", url: req.notifyUrl }] : [] });
      try {
        const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(req) };
        const res = await call(req.reportId, "/platform-report", init, startMs + PLATFORM_REPORT_EXTRA_MS);
        if (res.status === 503) throw new RunnerBusy("runner busy");
        if (!res.ok) throw new RunnerUnreachable(`runner answered HTTP ${res.status}`);
        return await res.json();
      } finally {
        await transport.release(req.reportId).catch(() => {});
      }
    },
    /** A dry run's probe of a job's inputs, on a runner of its own (scoped to GET just those inputs). */
    async probe(req: RunnerProbeRequest): Promise<RunnerProbeResult> {
      await transport.prepare(req.probeId, probeScopeOf(req.inputs));
      try {
        const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(req) };
        const res = await call(req.probeId, "/probe", init, startMs + req.timeoutMs);
        if (res.status === 503) throw new RunnerBusy("runner busy");
        if (!res.ok) throw new RunnerUnreachable(`runner answered HTTP ${res.status}`);
        return (await res.json()) as RunnerProbeResult;
      } finally {
        await transport.release(req.probeId).catch(() => {});
      }
    },
    /** Best effort: the runner stops and drops the job; production also ends the job's container. */
    async release(jobId: string): Promise<void> {
      await call(jobId, `/jobs/${jobId}`, { method: "DELETE" }, callMs)
        .then((r) => r.body?.cancel())
        .catch(() => {});
      await transport.release(jobId).catch((err) => console.error(`job ${jobId}: releasing its runner failed`, err));
    },
  };
}

/** Local development and tests: one runner process on loopback serves every job. */
export function localTransport(baseUrl: string, secret: string): RunnerTransport {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    prepare: async () => null,
    fetch: (_jobId, path, init) => {
      const headers = new Headers(init?.headers);
      headers.set(RUNNER_SECRET_HEADER, secret);
      return fetch(`${base}${path}`, { ...init, headers });
    },
    release: async () => {},
    timeouts: { startMs: 10_000, callMs: 5_000 },
  };
}
