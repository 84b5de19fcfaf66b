import { z } from "zod";
import { DEFAULT_PUBLIC_PROBE_HOST, isPublicProbeName } from "../net/public-host-name.ts";

/**
 * The platform report (POST /v1/admin/platform-report): what a runner sees of the platform it runs on,
 * facts production does not promise and the local stack cannot show (docs/api.md, "Platform report";
 * `npm run smoke` judges them). One source for the runner's answer, the API's answer, the OpenAPI
 * document and the smoke test's types. The runner imports only the types (it has no npm packages).
 */

const detail = z.string().max(1000).describe("What happened, in words");
const elapsedMs = z.number().int().nonnegative();

const addressSchema = z.object({
  address: z.string().max(64),
  family: z.union([z.literal(4), z.literal(6)]),
  kind: z
    .enum(["bypasses-sidecar", "sidecar-placeholder", "public", "private"])
    .describe(
      "bypasses-sidecar: in a range Cloudflare's sidecar leaves alone (loopback, the container's own networks, the gateway's /24), so a connection there would not reach the Worker; sidecar-placeholder: 11.0.0.1 or fd00::1, what the sidecar of wrangler dev answers; public; private: any other address that is not public (behind the sidecar it still reaches the Worker)",
    ),
});

export const dnsLookupSchema = z.object({
  name: z.string().max(253),
  role: z
    .enum(["public", "internal"])
    .describe(
      "public: the name asked for; internal: a made-up name the Worker's egress handler answers (runner notifications, directory-output files)",
    ),
  outcome: z
    .enum(["resolved", "failed", "not-applicable"])
    .describe(
      "not-applicable: a runner that connects by itself (RUNNER_EGRESS=direct), where no container DNS is in the way",
    ),
  addresses: z.array(addressSchema).max(64).describe("Every address dns.lookup answered, in its order"),
  detail,
  ms: elapsedMs,
});

export const connectionAttemptSchema = z.object({
  via: z
    .enum(["raw-socket", "runner-client"])
    .describe(
      "raw-socket: a plain request with the system's resolver, as any process in the container could make; runner-client: the runner's own client, as a job's URL input or destination uses it",
    ),
  url: z.string().max(300),
  outcome: z
    .enum(["worker-refused", "runner-refused", "answered", "failed", "not-applicable"])
    .describe(
      "worker-refused: the Worker's egress handler answered (403 with x-ffjobs-egress), as it must for a host no job scopes; runner-refused: the runner's own checks refused the DNS answer; answered: something else answered (the request did not go only to the Worker); failed: no answer at all",
    ),
  status: z.number().int().nullable(),
  detail,
  ms: elapsedMs,
});

export const notificationReportSchema = z.object({
  outcome: z
    .enum(["delivered", "failed", "not-configured"])
    .describe(
      "delivered: the Worker's notification handler answered 2xx to the runner, through the path a job's notifications take",
    ),
  status: z.number().int().nullable(),
  detail,
  ms: elapsedMs,
});

export const sandboxReportSchema = z.object({
  requested: z
    .enum(["on", "namespaces", "uid", "off"])
    .describe("RUNNER_SANDBOX as the runner was started with (CONTAINER_RUNNER_SANDBOX in production)"),
  mode: z.enum(["namespaces", "uid", "off", "unavailable"]),
  description: z.string().max(1000),
  fallbackReason: z
    .string()
    .max(2000)
    .nullable()
    .describe(
      "Why a stronger isolation did not start (bubblewrap's error when the uid fallback was chosen); null when none was tried and failed",
    ),
  problem: z
    .string()
    .max(2000)
    .nullable()
    .describe("Why no isolation could start (mode unavailable: every job fails SANDBOX_UNAVAILABLE)"),
});

/** The runner's answer to POST /platform-report. */
export const runnerPlatformReportSchema = z.object({
  egress: z
    .enum(["direct", "cloudflare"])
    .describe(
      "How the runner reaches anything: cloudflare (a container whose every connection goes through the platform's sidecar to the Worker) or direct (a local process that connects itself)",
    ),
  sandbox: sandboxReportSchema,
  dns: z.array(dnsLookupSchema).max(8),
  connections: z.array(connectionAttemptSchema).max(8),
  notification: notificationReportSchema,
});

/** The API's answer: the runner's, with what the Worker knows. */
export const platformReportSchema = runnerPlatformReportSchema.extend({
  runnerMode: z.enum(["local", "container"]).describe("RUNNER_MODE of the Worker that asked"),
  publicHost: z.string(),
  checkedAt: z.string().describe("When the Worker asked (ISO 8601)"),
  durationMs: elapsedMs.describe("How long the runner took to answer, a container's start included"),
});

export const platformReportRequestSchema = z
  .object({
    publicHost: z
      .string()
      .max(253)
      .refine(
        isPublicProbeName,
        "a public DNS host name in lower case (two labels or more, not an IP address, not under localhost, .local, .internal, .test or another special-use domain)",
      )
      .default(DEFAULT_PUBLIC_PROBE_HOST)
      .describe(
        "A public name for the runner to look up and try to reach directly (nothing is sent there unless the platform lets traffic out without the Worker)",
      ),
  })
  .strict();

export type RunnerPlatformReport = z.infer<typeof runnerPlatformReportSchema>;
export type PlatformReport = z.infer<typeof platformReportSchema>;
export type DnsLookupReport = z.infer<typeof dnsLookupSchema>;
export type ConnectionAttemptReport = z.infer<typeof connectionAttemptSchema>;

/** What the Worker sends the runner: every name and URL is the Worker's (the public name checked as above). */
export type RunnerPlatformRequest = {
  reportId: string;
  publicHost: string;
  internalHosts: string[];
  /** Where the runner sends its notification: the path a job's notifications take; null if this stack has none. */
  notifyUrl: string | null;
};
