import type { Config } from "../config.ts";
import type { Env } from "../env.ts";
import { NOTIFY_HOST } from "../net/public-host-name.ts";

/**
 * How a runner tells a job's coordinator to look now. A container reaches only the Worker's outbound
 * handler, so its notifications go to a made-up host the handler answers itself (no credential in
 * the container: the handler accepts only the jobs its container was scoped to). A local runner
 * calls the Worker's own route instead. Either way the coordinator is only poked: it asks the
 * runner what changed over the usual, trusted channel.
 */
export { NOTIFY_HOST };
export const LOCAL_NOTIFY_PATH = "/internal/runner-notify/jobs/";

export function notifyUrlFor(config: Config, jobId: string): string | null {
  if (config.runnerMode === "container") return `http://${NOTIFY_HOST}/jobs/${jobId}`;
  return config.runnerNotifyBaseUrl ? `${config.runnerNotifyBaseUrl}${LOCAL_NOTIFY_PATH}${jobId}` : null;
}

export function isNotifyRequest(url: URL): boolean {
  return url.hostname === NOTIFY_HOST;
}

/** Pokes the job's coordinator; the job id comes from a URL the caller already checked. */
export async function pokeCoordinator(env: Env, jobId: string): Promise<Response> {
  await env.JOB_COORDINATOR.get(env.JOB_COORDINATOR.idFromName(jobId)).notify();
  return new Response(null, { status: 204 });
}

export function jobIdOfNotifyPath(pathname: string): string | null {
  const m = /\/jobs\/([0-9a-f-]{36})$/.exec(pathname);
  return m ? m[1] : null;
}
