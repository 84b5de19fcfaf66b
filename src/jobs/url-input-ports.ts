import type { CreateJobRequest } from "../api/schemas.ts";
import type { RequestIssue } from "./job-request.ts";

/**
 * In production a container's requests leave through the Worker's outbound handler, which
 * Cloudflare hands only ports 80 (http) and 443 (https). A URL input on any other port could never
 * be fetched, so it is refused at creation with a clear reason instead of failing deep in the job.
 */
export function unreachablePortIssues(req: CreateJobRequest, runnerMode: "container" | "local"): RequestIssue[] {
  if (runnerMode !== "container") return [];
  const urlInputs = req.input
    ? req.input.map((input, i) => ({ input, path: ["input", String(i), "url"] }))
    : Object.entries(req.inputs ?? {}).map(([name, input]) => ({ input, path: ["inputs", name, "url"] }));
  return urlInputs.flatMap(({ input, path }) => {
    if (input.type !== "url" || !URL.canParse(input.url)) return [];
    const { port, protocol } = new URL(input.url);
    if (port === "") return [];
    const usual = protocol === "https:" ? 443 : 80;
    return [{ path, message: `port ${port} cannot be reached: the service fetches ${protocol.slice(0, -1)} inputs only on port ${usual}` }];
  });
}
