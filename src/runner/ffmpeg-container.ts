import { Container, type OutboundHandlerContext } from "@cloudflare/containers";
import type { Env } from "../env.ts";
import { loadConfig } from "../config.ts";
import { DEFAULT_MAX_COPIED_INPUT_BYTES } from "../jobs/request/limits.ts";
import { RUNNER_PORT } from "./runner-protocol.ts";
import { egressRefusal, mergeScopes, staleScopeKeys, type EgressScope } from "./egress-scope.ts";
import { isNotifyRequest, jobIdOfNotifyPath, pokeCoordinator } from "./runner-notify.ts";
import { acceptRunnerUpload, isRunnerFilesRequest } from "./runner-files.ts";
import { serveJobEgress } from "./job-egress.ts";
import { dohResolver } from "../net/doh-resolver.ts";
import { jobResolver } from "../net/resolution-cache.ts";
import { newRunnerSecret, RUNNER_SECRET_HEADER } from "./runner-secret.ts";
import { startInvocation } from "../platform/invocation.ts";

const SCOPE_KEY_PREFIX = "egress-scope:";
const RUNNER_SECRET_KEY = "runner-secret";

/**
 * The production runner: a Cloudflare Container running container/ (the same server as local
 * development). It holds no secrets and has no internet of its own: every request it makes goes
 * through `jobEgress` in the Worker, which lets through only the requests its jobs need.
 * Which instance serves a job is the placement's choice (src/runner/container-placement.ts).
 */
export class FfmpegContainer extends Container<Env> {
  defaultPort = RUNNER_PORT;
  enableInternet = false;
  interceptHttps = true;

  /** This instance's runner secret: made once, kept in storage, so a restarted object still knows it. */
  private runnerSecret = "";

  constructor(ctx: DurableObjectState<Record<string, never>>, env: Env) {
    super(ctx, env);
    this.sleepAfter = `${loadConfig(env).containerIdleSeconds}s`;
    this.envVars = {
      RUNNER_HOST: "0.0.0.0",
      RUNNER_PORT: String(RUNNER_PORT),
      RUNNER_CONCURRENCY: "1",
      RUNNER_SANDBOX: loadConfig(env).containerSandbox,
      // Inputs read by range never touch the disk; copied ones, outputs and work files share it.
      RUNNER_JOB_DISK_BYTES: String(loadConfig(env).containerJobDiskBytes),
      RUNNER_MAX_COPIED_INPUT_BYTES: String(
        Math.min(DEFAULT_MAX_COPIED_INPUT_BYTES, loadConfig(env).containerJobDiskBytes),
      ),
      // Every connection goes through Cloudflare's sidecar to jobEgress (container/src/settings.ts).
      RUNNER_EGRESS: "cloudflare",
      // A rollout's SIGTERM lets the job it runs finish (wrangler.toml: rollout_active_grace_period).
      RUNNER_DRAIN_ON_SIGTERM: "on",
    };
    // Nothing reaches the object before its secret is known (and handed to the container it starts).
    void ctx.blockConcurrencyWhile(async () => {
      this.runnerSecret = (await ctx.storage.get<string>(RUNNER_SECRET_KEY)) ?? newRunnerSecret();
      await ctx.storage.put(RUNNER_SECRET_KEY, this.runnerSecret);
      this.envVars = { ...this.envVars, RUNNER_CONTROL_SECRET: this.runnerSecret };
    });
  }

  // Assigned in a static block, not declared as static fields: a field would shadow the library's
  // static setters, leaving its handler registry empty (no jobEgress, no deny-all default).
  static {
    FfmpegContainer.outboundHandlers = {
      // Each of a container's requests is an invocation (of ContainerProxy, which calls this), with its own limits.
      jobEgress: (req: Request, env: Env, ctx: OutboundHandlerContext<EgressScope>): Promise<Response> =>
        startInvocation(env, (env) => {
          const config = loadConfig(env);
          return serveJobEgress(req, ctx.params, {
            fetch: (r) => fetch(r),
            resolve: jobResolver(ctx, dohResolver(config.egressResolverUrl)),
            allowedPrivateHosts: config.allowedPrivateHosts,
            internal(r, url) {
              const notifiedJob = isNotifyRequest(url) ? jobIdOfNotifyPath(url.pathname) : null;
              if (notifiedJob) return pokeCoordinator(env, notifiedJob);
              if (isRunnerFilesRequest(url)) return acceptRunnerUpload(env, config, r);
              return null;
            },
          });
        }),
    };
    /** Deny-all until a job scopes the egress. */
    FfmpegContainer.outbound = async (req: Request) => egressRefusal(req.method, req.url);
  }

  /**
   * Lets the job's requests through, and nothing an earlier job needed: every placement runs one job
   * at a time per instance, and one the pool took back from a job whose coordinator never released it
   * must not keep that job's URLs reachable. Says whether the container was already running (warm) or
   * will start for it (cold).
   */
  async admitJob(jobId: string, scope: EgressScope): Promise<"cold" | "warm"> {
    const warm = this.ctx.container?.running === true;
    const stale = staleScopeKeys(
      [...(await this.ctx.storage.list({ prefix: SCOPE_KEY_PREFIX })).keys()],
      SCOPE_KEY_PREFIX + jobId,
    );
    if (stale.length) await this.ctx.storage.delete(stale);
    await this.ctx.storage.put(SCOPE_KEY_PREFIX + jobId, scope);
    await this.applyScopes();
    return warm ? "warm" : "cold";
  }

  /** The job is over: its requests are refused again; `stop` also ends the instance. */
  async releaseJob(jobId: string, stop: boolean): Promise<void> {
    await this.ctx.storage.delete(SCOPE_KEY_PREFIX + jobId);
    // A container that already died (killed, evicted) has nothing left to stop.
    if (stop && this.ctx.container?.running) await this.destroy();
    else if (!stop) await this.applyScopes();
  }

  /**
   * Only a job start (or a dry run's probe, a capabilities read or a platform report: each on an instance of its own) may boot the container. Asking a stopped container about a job would start a
   * fresh one that knows nothing of it; answering "unknown job" lets the coordinator see it is lost.
   */
  override async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const startsJob =
      (request.method === "POST" &&
        (pathname === "/jobs" || pathname === "/probe" || pathname === "/platform-report")) ||
      (request.method === "GET" && pathname === "/capabilities");
    if (!startsJob && !this.ctx.container?.running) {
      return Response.json({ error: "the runner's container is not running" }, { status: 404 });
    }
    const authorized = new Request(request);
    authorized.headers.set(RUNNER_SECRET_HEADER, this.runnerSecret);
    return super.fetch(authorized);
  }

  private async applyScopes(): Promise<void> {
    const scopes = await this.ctx.storage.list<EgressScope>({ prefix: SCOPE_KEY_PREFIX });
    await this.setOutboundHandler("jobEgress", mergeScopes([...scopes.values()]));
  }
}
