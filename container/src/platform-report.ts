import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import { Readable } from "node:stream";
import { isPublicAddress } from "../../src/net/address-policy.ts";
import { isPublicProbeName, isServiceInternalName } from "../../src/net/public-host-name.ts";
import { EGRESS_REFUSED_HEADER } from "../../src/runner/egress-scope.ts";
import type {
  ConnectionAttemptReport,
  DnsLookupReport,
  RunnerPlatformReport,
  RunnerPlatformRequest,
} from "../../src/runner/platform-report.ts";
import { egressOptions, FetchFailure, sendToUrl } from "./safe-fetch.ts";
import { postNotification } from "./notifier.ts";
import type { RunnerSettings } from "./settings.ts";
import { bypassesSidecar, sidecarBypassNetworks, type Network } from "./sidecar-bypass.ts";

/*
 * The runner's side of the platform report (src/runner/platform-report.ts): what this host's resolver
 * answers for the names the Worker gave, which sandbox started and why, whether a request that no job
 * scopes comes back as the Worker's egress refusal (behind Cloudflare's sidecar every connection must
 * reach the Worker; anything else answering means traffic left without it), and whether a notification
 * reaches the Worker the way a job's does. Facts only: `npm run smoke` judges them.
 */

/** Each lookup, connection and the notification is bounded; they run side by side. */
export const LOOKUP_TIMEOUT_MS = 5_000;
export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_INTERNAL_HOSTS = 4;
/**
 * What the report's schema holds (src/runner/platform-report.ts): the Worker refuses a longer answer as
 * malformed (a 500, which npm run smoke waits out as not ready for its whole budget), so a long bubblewrap
 * error or a name with many addresses is cut here, where it is seen, and says so.
 */
const MAX_ADDRESSES = 64;
const MAX_DESCRIPTION_CHARS = 1000;
const MAX_REASON_CHARS = 2000;
const MAX_URL_LENGTH = 2048;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type Answer = { status: number; refusedHeader: string | null };
export type PlatformDeps = {
  lookup: (name: string) => Promise<{ address: string; family: number }[]>;
  /** A plain GET with the system's resolver and no agent, as any process in the container could send. */
  rawGet: (url: string) => Promise<Answer>;
  /** The runner's own client (the checked lookup a job's URL input and destination use); throws FetchFailure. */
  runnerPost: (url: string) => Promise<Answer>;
  notify: (url: string) => Promise<number>;
  /** The ranges the sidecar leaves alone on this host (sidecar-bypass.ts). */
  bypassNetworks: () => readonly Network[];
  now: () => number;
};
export type PlatformFacts = { egress: RunnerSettings["egress"]; sandbox: RunnerPlatformReport["sandbox"] };

/** The Worker's request, checked: every name and URL in it reaches a lookup or a connection. */
export function isPlatformRequest(v: unknown): v is RunnerPlatformRequest {
  const r = v as RunnerPlatformRequest;
  return (
    typeof r === "object" &&
    r !== null &&
    typeof r.reportId === "string" &&
    UUID.test(r.reportId) &&
    typeof r.publicHost === "string" &&
    isPublicProbeName(r.publicHost) &&
    Array.isArray(r.internalHosts) &&
    r.internalHosts.length <= MAX_INTERNAL_HOSTS &&
    r.internalHosts.every((h) => typeof h === "string" && isServiceInternalName(h)) &&
    (r.notifyUrl === null ||
      (typeof r.notifyUrl === "string" &&
        r.notifyUrl.length <= MAX_URL_LENGTH &&
        /^https?:\/\//.test(r.notifyUrl) &&
        URL.canParse(r.notifyUrl)))
  );
}

export async function platformReport(
  req: RunnerPlatformRequest,
  facts: PlatformFacts,
  deps: PlatformDeps,
): Promise<RunnerPlatformReport> {
  const behindSidecar = facts.egress === "cloudflare";
  const names = [
    { name: req.publicHost, role: "public" as const },
    ...req.internalHosts.map((name) => ({ name, role: "internal" as const })),
  ];
  const targets = [
    { via: "raw-socket" as const, url: `http://${req.publicHost}/` },
    { via: "runner-client" as const, url: `http://${req.publicHost}/` },
    { via: "runner-client" as const, url: `https://${req.publicHost}/` },
  ];
  const [dns, connections, notification] = await Promise.all([
    Promise.all(names.map((n) => (behindSidecar ? lookUp(n.name, n.role, deps) : notApplicableLookup(n.name, n.role)))),
    Promise.all(targets.map((t) => (behindSidecar ? attempt(t.via, t.url, deps) : notApplicableAttempt(t.via, t.url)))),
    notifyOnce(req.notifyUrl, deps),
  ]);
  return { egress: facts.egress, sandbox: boundedSandbox(facts.sandbox), dns, connections, notification };
}

function boundedSandbox(s: RunnerPlatformReport["sandbox"]): RunnerPlatformReport["sandbox"] {
  return {
    ...s,
    description: cut(s.description, MAX_DESCRIPTION_CHARS),
    fallbackReason: s.fallbackReason && cut(s.fallbackReason, MAX_REASON_CHARS),
    problem: s.problem && cut(s.problem, MAX_REASON_CHARS),
  };
}

const cut = (text: string, chars: number) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);

/** A local runner (RUNNER_EGRESS=direct) has no container DNS or sidecar in its way: nothing here would be the platform's. */
function notApplicableLookup(name: string, role: DnsLookupReport["role"]): DnsLookupReport {
  return {
    name,
    role,
    outcome: "not-applicable",
    addresses: [],
    detail:
      "not looked up: RUNNER_EGRESS=direct, this runner resolves with its host's resolver; a container's DNS is seen only on a deploy",
    ms: 0,
  };
}

function notApplicableAttempt(via: ConnectionAttemptReport["via"], url: string): ConnectionAttemptReport {
  return {
    via,
    url,
    outcome: "not-applicable",
    status: null,
    detail:
      "not attempted: RUNNER_EGRESS=direct, no sidecar carries this runner's connections to the Worker, so the request would really leave",
    ms: 0,
  };
}

async function lookUp(name: string, role: DnsLookupReport["role"], deps: PlatformDeps): Promise<DnsLookupReport> {
  const started = deps.now();
  try {
    const found = await withTimeout(deps.lookup(name), LOOKUP_TIMEOUT_MS, `no answer within ${LOOKUP_TIMEOUT_MS} ms`);
    const addresses = found.slice(0, MAX_ADDRESSES).map((a) => ({
      address: a.address,
      family: a.family === 6 ? (6 as const) : (4 as const),
      kind: addressKind(a.address, deps.bypassNetworks()),
    }));
    const ms = deps.now() - started;
    if (addresses.length === 0)
      return { name, role, outcome: "failed", addresses, detail: "the resolver answered no address", ms };
    const shown = found.length > MAX_ADDRESSES ? `, the first ${MAX_ADDRESSES} shown` : "";
    return { name, role, outcome: "resolved", addresses, detail: `${found.length} address(es)${shown}`, ms };
  } catch (err) {
    return { name, role, outcome: "failed", addresses: [], detail: errorText(err), ms: deps.now() - started };
  }
}

/**
 * What the sidecar of `wrangler dev` (cloudflare/proxy-everything dns.go) answers for every allowed
 * name. Only a label here: behind the sidecar no answer decides anything but whether it is carried.
 */
const SIDECAR_PLACEHOLDERS = ["11.0.0.1", "fd00::1"];

export function addressKind(address: string, bypass: readonly Network[]): DnsLookupReport["addresses"][number]["kind"] {
  if (bypassesSidecar(address, bypass)) return "bypasses-sidecar";
  if (SIDECAR_PLACEHOLDERS.includes(address.toLowerCase())) return "sidecar-placeholder";
  return isPublicAddress(address) ? "public" : "private";
}

async function attempt(
  via: ConnectionAttemptReport["via"],
  url: string,
  deps: PlatformDeps,
): Promise<ConnectionAttemptReport> {
  const started = deps.now();
  try {
    const answer = await withTimeout(
      via === "raw-socket" ? deps.rawGet(url) : deps.runnerPost(url),
      ATTEMPT_TIMEOUT_MS,
      `no answer within ${ATTEMPT_TIMEOUT_MS} ms`,
    );
    const ms = deps.now() - started;
    if (answer.status === 403 && answer.refusedHeader !== null) {
      return {
        via,
        url,
        outcome: "worker-refused",
        status: 403,
        detail: `the Worker's egress refused it (${EGRESS_REFUSED_HEADER}: ${answer.refusedHeader})`,
        ms,
      };
    }
    return {
      via,
      url,
      outcome: "answered",
      status: answer.status,
      detail: `HTTP ${answer.status} without ${EGRESS_REFUSED_HEADER}: something other than the Worker's egress answered`,
      ms,
    };
  } catch (err) {
    const ms = deps.now() - started;
    // The runner's own client refuses a DNS answer it will not connect to before any connection.
    if (err instanceof FetchFailure && err.kind === "refused")
      return { via, url, outcome: "runner-refused", status: null, detail: `the runner refused it: ${err.message}`, ms };
    return { via, url, outcome: "failed", status: null, detail: errorText(err), ms };
  }
}

async function notifyOnce(url: string | null, deps: PlatformDeps): Promise<RunnerPlatformReport["notification"]> {
  if (!url)
    return {
      outcome: "not-configured",
      status: null,
      detail: "this stack gives runners no notification URL (RUNNER_NOTIFY_BASE_URL)",
      ms: 0,
    };
  const started = deps.now();
  try {
    const status = await deps.notify(url);
    const ms = deps.now() - started;
    if (status >= 200 && status < 300)
      return { outcome: "delivered", status, detail: `the Worker answered HTTP ${status}`, ms };
    return { outcome: "failed", status, detail: `the Worker answered HTTP ${status}`, ms };
  } catch (err) {
    return { outcome: "failed", status: null, detail: errorText(err), ms: deps.now() - started };
  }
}

/** The real lookups and connections, for this runner's settings. */
export function realPlatformDeps(settings: RunnerSettings): PlatformDeps {
  const options = { allowedPrivateHosts: [], ...egressOptions(settings) };
  return {
    lookup: (name) => dnsLookup(name, { all: true, order: "verbatim" }),
    rawGet: (url) =>
      new Promise((resolve, reject) => {
        const req = http.get(url, { agent: false, timeout: ATTEMPT_TIMEOUT_MS }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, refusedHeader: headerOf(res.headers[EGRESS_REFUSED_HEADER]) });
        });
        req.on("timeout", () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`)));
        req.on("error", reject);
      }),
    runnerPost: async (url) => {
      const res = await sendToUrl(
        "POST",
        url,
        options,
        AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        { "content-length": "0" },
        Readable.from([]),
      );
      res.resume();
      return { status: res.statusCode ?? 0, refusedHeader: headerOf(res.headers[EGRESS_REFUSED_HEADER]) };
    },
    notify: (url) => postNotification(url, settings.controlSecret),
    bypassNetworks: () => sidecarBypassNetworks(),
    now: () => Date.now(),
  };
}

const headerOf = (v: string | string[] | undefined): string | null =>
  v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;

function errorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
