// Asks the service for a runner's platform report (POST /v1/admin/platform-report, an operator's key).
import { platformReportSchema, type PlatformReport } from "../../src/runner/platform-report.ts";
import { NoCompleteAnswer } from "./bounded-fetch.ts";
import { NotReadyYet } from "./cold-start.ts";
import { notExpected, type Finding } from "./finding.ts";

const CHECK = "platform report";

/**
 * The report, or a finding that says why there is none. A 5xx or no connection is NotReadyYet (a
 * container may still be starting); an answer that does not match the schema is a finding too.
 */
export async function fetchPlatformReport(
  o: { url: string; apiKey: string; publicHost?: string },
  doFetch: typeof fetch,
): Promise<PlatformReport | Finding> {
  let res: Response;
  let text: string;
  try {
    res = await doFetch(`${o.url.replace(/\/+$/, "")}/v1/admin/platform-report`, {
      method: "POST",
      headers: { Authorization: `Bearer ${o.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(o.publicHost ? { publicHost: o.publicHost } : {}),
    });
    text = await res.text();
  } catch (err) {
    // No whole answer (too slow or too large: bounded-fetch.ts), or no connection.
    if (err instanceof NoCompleteAnswer) throw new NotReadyYet(err.message);
    throw new NotReadyYet(
      `cannot connect: ${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message}`,
    );
  }
  if (res.status >= 500) throw new NotReadyYet(`HTTP ${res.status} ${text.slice(0, 200)}`);
  // Another report is still running for this account (one at a time: each holds a container).
  if (res.status === 429) throw new NotReadyYet(`HTTP 429: another platform report is running (${text.slice(0, 200)})`);
  if (res.status === 403) {
    return notExpected(
      CHECK,
      "the API key is not an operator's, so the runner's DNS, sandbox, egress and notification were not checked",
      "run it again without --key (it makes an operator key of its own) or with an operator's key (npm run keys -- create --account ops --operator --remote)",
    );
  }
  if (res.status === 404)
    return notExpected(
      CHECK,
      "the service has no platform report route",
      "deploy this version (npm run deploy), then run npm run smoke again",
    );
  if (!res.ok)
    return notExpected(
      CHECK,
      `HTTP ${res.status}: ${text.slice(0, 300)}`,
      "check --public-host (a public DNS name such as example.com)",
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new NotReadyYet(`HTTP ${res.status} with a body that is not JSON`);
  }
  const parsed = platformReportSchema.safeParse(body);
  if (!parsed.success) {
    return notExpected(
      CHECK,
      `the report does not match its schema (${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")})`,
      "run the smoke test of the same version as the deployed service",
    );
  }
  return parsed.data;
}
