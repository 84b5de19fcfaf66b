import { Container, type OutboundHandlerContext } from "@cloudflare/containers";
import type { Env } from "../env.ts";
import { loadConfig } from "../config.ts";
import { RUNNER_PORT } from "./runner-protocol.ts";
import type { RunnerTransport } from "./runner-client.ts";

type EgressParams = { allowedHosts: string[] };

/**
 * The production runner: one container instance per job, running container/ (the same server as
 * local development). It holds no secrets and has no internet of its own: every request it makes
 * goes through `jobEgress` in the Worker, which lets through only the hosts its job needs
 * (storage and the job's URL inputs).
 */
export class FfmpegContainer extends Container<Env> {
  defaultPort = RUNNER_PORT;
  sleepAfter = "5m";
  enableInternet = false;
  interceptHttps = true;

  constructor(ctx: DurableObjectState<{}>, env: Env) {
    super(ctx, env);
    this.envVars = {
      RUNNER_HOST: "0.0.0.0",
      RUNNER_PORT: String(RUNNER_PORT),
      RUNNER_CONCURRENCY: "1",
      RUNNER_SANDBOX: loadConfig(env).containerSandbox,
    };
  }

  static outboundHandlers = {
    async jobEgress(req: Request, _env: unknown, ctx: OutboundHandlerContext<EgressParams>): Promise<Response> {
      const host = new URL(req.url).hostname.toLowerCase();
      if (!ctx.params?.allowedHosts.includes(host)) return new Response("egress refused", { status: 403 });
      return fetch(req, { redirect: "manual" });
    },
  };

  /** Deny-all until a job scopes the egress. */
  static outbound = async () => new Response("egress refused", { status: 403 });
}

export function containerTransport(ns: DurableObjectNamespace<FfmpegContainer>): RunnerTransport {
  const stub = (jobId: string) => ns.get(ns.idFromName(jobId));
  return {
    async prepare(jobId, egressHosts) {
      await stub(jobId).setOutboundHandler("jobEgress", { allowedHosts: egressHosts });
    },
    fetch: (jobId, path, init) => stub(jobId).fetch(new Request(`http://runner${path}`, init)),
    async release(jobId) {
      await stub(jobId).destroy();
    },
  };
}
