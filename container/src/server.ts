import http from "node:http";
import { MAX_FOLLOW_WAIT_MS, type RunnerCapabilities, type RunnerFollow } from "../../src/runner/runner-protocol.ts";
import { isRunnerJobRequest, isRunnerProbeRequest } from "../../src/runner/runner-request-checks.ts";
import type { createJobManager } from "./job-manager.ts";
import { probeInputs } from "./probe-inputs.ts";
import { capabilities } from "./capabilities.ts";
import type { RunnerSettings } from "./settings.ts";
import { RUNNER_SECRET_HEADER, secretMatches } from "../../src/runner/runner-secret.ts";
import { isPlatformRequest, platformReport, realPlatformDeps } from "./platform-report.ts";

const MAX_BODY_BYTES = 1024 * 1024;
/** Dry-run probes at once; more answer 503 (busy). They hold no job slot, so they are capped here. */
const MAX_PROBES_IN_FLIGHT = 4;
type JobManager = ReturnType<typeof createJobManager>;

/** The runner's HTTP API, spoken by the coordinator (see src/runner/runner-client.ts). */
export type SandboxMode = RunnerCapabilities["sandbox"]["mode"];

/** `sandboxFallback`: why a stronger isolation did not start, when a weaker one did (isolation.ts). */
export type RunnerInfo = {
  concurrency: number;
  sandbox: SandboxMode;
  sandboxDescription: string;
  sandboxFallback?: string | null;
};

export function createRunnerServer(manager: JobManager, info: RunnerInfo, settings: RunnerSettings): http.Server {
  let probesInFlight = 0;
  return http.createServer(async (req, res) => {
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    try {
      const url = new URL(req.url ?? "/", "http://runner");
      const match = /^\/jobs\/([0-9a-f-]{36})(\/cancel)?$/.exec(url.pathname);
      if (req.method === "GET" && url.pathname === "/healthz") {
        return send(200, {
          ok: info.sandbox !== "unavailable",
          active: manager.activeCount(),
          concurrency: info.concurrency,
          sandbox: info.sandbox,
        });
      }
      // Everything but the health check is the coordinator's alone.
      if (!secretMatches(headerValue(req.headers[RUNNER_SECRET_HEADER]), settings.controlSecret))
        return send(401, { error: "unauthorized" });
      if (req.method === "GET" && url.pathname === "/capabilities") {
        return send(200, {
          ...(await capabilities()),
          sandbox: { mode: info.sandbox, description: info.sandboxDescription },
        });
      }
      if (req.method === "POST" && url.pathname === "/platform-report") {
        const body = await readJson(req);
        if (!isPlatformRequest(body)) return send(400, { error: "malformed platform report request" });
        const sandbox = {
          requested: settings.sandbox,
          mode: info.sandbox,
          description: info.sandboxDescription,
          fallbackReason: info.sandboxFallback ?? null,
          problem: settings.sandboxProblem,
        };
        return send(200, await platformReport(body, { egress: settings.egress, sandbox }, realPlatformDeps(settings)));
      }
      if (req.method === "POST" && url.pathname === "/probe") {
        const body = await readJson(req);
        if (!isRunnerProbeRequest(body)) return send(400, { error: "malformed probe request" });
        if (probesInFlight >= MAX_PROBES_IN_FLIGHT) return send(503, { error: "busy" });
        probesInFlight++;
        try {
          return send(200, await probeInputs(body, settings));
        } finally {
          probesInFlight--;
        }
      }
      if (req.method === "POST" && url.pathname === "/jobs") {
        const body = await readJson(req);
        if (!isRunnerJobRequest(body)) return send(400, { error: "malformed job request" });
        const status = manager.submit(body);
        // Draining (a rollout stops this container): the coordinator keeps the job queued and asks again.
        return status ? send(202, status) : send(503, { error: "draining: this runner takes no new job" });
      }
      if (match && req.method === "GET" && !match[2]) {
        const follow = followOf(url.searchParams);
        if (follow === "malformed") return send(400, { error: "malformed until or waitMs" });
        const gone = new AbortController();
        res.on("close", () => gone.abort());
        const status = follow
          ? await manager.waitFor(match[1], follow.until, follow.waitMs, gone.signal)
          : manager.status(match[1]);
        return status ? send(200, status) : send(404, { error: "unknown job" });
      }
      if (match && req.method === "POST" && match[2]) {
        const status = await manager.cancel(match[1]);
        return status ? send(200, status) : send(404, { error: "unknown job" });
      }
      if (match && req.method === "DELETE" && !match[2]) {
        manager.release(match[1]);
        return send(204);
      }
      return send(404, { error: "not found" });
    } catch (err) {
      if (!res.headersSent)
        send(err instanceof SyntaxError || err instanceof RangeError ? 400 : 500, { error: "bad request" });
    }
  });
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** A status call's `until` and `waitMs` (both, or neither): a held answer (runner-protocol.ts, RunnerFollow). */
function followOf(q: URLSearchParams): RunnerFollow | null | "malformed" {
  const until = q.get("until");
  const waitMs = q.get("waitMs");
  if (until === null && waitMs === null) return null;
  // Said once each: a filter in front that read the last of two would see another call than this one.
  if (q.getAll("until").length !== 1 || q.getAll("waitMs").length !== 1) return "malformed";
  if ((until !== "started" && until !== "finished") || !/^\d{1,6}$/.test(waitMs ?? "")) return "malformed";
  if (Number(waitMs) > MAX_FOLLOW_WAIT_MS) return "malformed";
  return { until, waitMs: Number(waitMs) };
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RangeError("body too large");
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}
