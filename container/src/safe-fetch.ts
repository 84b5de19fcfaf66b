import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { createWriteStream } from "node:fs";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { pipeline } from "node:stream/promises";
import { once } from "node:events";
import { Transform } from "node:stream";
import { isAllowedPrivateHost, isPublicAddress } from "../../src/net/address-policy.ts";
import { EGRESS_REFUSED_HEADER } from "../../src/runner/egress-scope.ts";
import type { RunnerSettings } from "./settings.ts";
import { trustedAgent } from "./trust.ts";
import { bypassesSidecar, sidecarBypassNetworks, type Network } from "./sidecar-bypass.ts";

export type FetchFailureKind = "refused" | "timeout" | "http_status" | "too_large" | "network" | "canceled";

export class FetchFailure extends Error {
  readonly kind: FetchFailureKind;
  readonly status: number | null;
  constructor(kind: FetchFailureKind, message: string, status: number | null = null) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

export type SafeFetchOptions = {
  allowedPrivateHosts: readonly string[];
  /** Service-minted storage URLs skip the address policy (they point at the service's own storage). */
  trusted?: boolean;
  maxBytes: number;
  /** Past `maxBytes`, keep the first `maxBytes` and stop reading instead of failing (a dry run's probe). */
  truncate?: boolean;
  timeoutMs: number;
  maxRedirects?: number;
  /** Aborts the download (the job was canceled). */
  signal?: AbortSignal;
  /** For https: trusts an extra CA (production's HTTPS interception). */
  httpsAgent?: https.Agent;
  /**
   * In a Cloudflare container every connection goes through the platform's sidecar to the Worker's
   * outbound handler: only ports 80 and 443 are carried, and HTTPS needs a host name (the sidecar
   * learns it from SNI, which an IP address does not give). What the container's DNS answers says
   * nothing of the destination (placeholders, real or private addresses, as the platform's egress
   * configuration decides): the Worker resolves the name itself and checks the real one. The only
   * answers refused here are those the sidecar would not carry to the Worker (sidecar-bypass.ts).
   */
  viaCloudflareSidecar?: boolean;
};

/** The options that follow from where the runner runs. */
export function egressOptions(settings: RunnerSettings): Pick<SafeFetchOptions, "httpsAgent" | "viaCloudflareSidecar"> {
  return { httpsAgent: trustedAgent(settings.extraCaFile), viaCloudflareSidecar: settings.egress === "cloudflare" };
}

const DEFAULT_MAX_REDIRECTS = 5;

/**
 * Opens a URL for reading: every address a connection may use is checked inside the DNS lookup that
 * connection performs (no gap for rebinding); IP literals are checked separately because Node skips
 * the lookup for them; redirects are followed by hand and each hop is checked again. Resolves with
 * the first answer that is not a redirect: 2xx, or 416 to a range request; anything else fails.
 */
export async function openUrl(
  url: string,
  opts: Omit<SafeFetchOptions, "maxBytes" | "timeoutMs"> & { signal: AbortSignal },
  headers: Record<string, string> = {},
): Promise<http.IncomingMessage> {
  let current = new URL(url);
  for (let hop = 0; ; hop++) {
    const res = await request(current, opts, opts.signal, headers);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop >= (opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS)) throw new FetchFailure("refused", "too many redirects");
      current = new URL(res.headers.location, current);
      continue;
    }
    if ((status >= 200 && status < 300) || (status === 416 && headers.range)) return res;
    res.resume();
    if (status === 403 && res.headers[EGRESS_REFUSED_HEADER])
      throw new FetchFailure("refused", await egressRefusalReason(res, current));
    throw new FetchFailure("http_status", `HTTP ${status}`, status);
  }
}

/** Downloads a URL to a file (openUrl's checks), within `maxBytes` (or its first `maxBytes` when `truncate`). */
export async function safeDownload(
  url: string,
  destPath: string,
  opts: SafeFetchOptions,
): Promise<{ bytes: number; truncated: boolean; declaredBytes: number | null }> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const res = await openUrl(url, { ...opts, signal });
  const declared = Number(res.headers["content-length"] ?? NaN);
  const declaredBytes = Number.isFinite(declared) ? declared : null;
  if (opts.truncate) {
    try {
      return { ...(await readFirstBytes(res, destPath, opts.maxBytes)), declaredBytes };
    } catch (err) {
      throw asFetchFailure(err, signal);
    }
  }
  if (declared > opts.maxBytes) {
    res.destroy();
    throw new FetchFailure("too_large", `larger than the ${opts.maxBytes}-byte limit`);
  }
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > opts.maxBytes) done(new FetchFailure("too_large", `larger than the ${opts.maxBytes}-byte limit`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(res, counter, createWriteStream(destPath), { signal });
  } catch (err) {
    throw asFetchFailure(err, signal);
  }
  return { bytes, truncated: false, declaredBytes };
}

/** Writes at most `limit` bytes of a response, then stops reading it. */
async function readFirstBytes(
  res: http.IncomingMessage,
  destPath: string,
  limit: number,
): Promise<{ bytes: number; truncated: boolean }> {
  const out = createWriteStream(destPath);
  let bytes = 0;
  let truncated = false;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      const take = chunk.subarray(0, limit - bytes);
      bytes += take.length;
      if (!out.write(take)) await once(out, "drain");
      if (bytes >= limit) {
        truncated = true;
        res.destroy();
        break;
      }
    }
  } finally {
    await new Promise<void>((done, fail) => out.end((err?: Error | null) => (err ? fail(err) : done())));
  }
  return { bytes, truncated };
}

/** One PUT or POST of `body` under the same address checks (no redirects: storage answers an upload itself). */
export function sendToUrl(
  method: "PUT" | "POST",
  url: string,
  opts: Omit<SafeFetchOptions, "maxBytes" | "timeoutMs">,
  signal: AbortSignal,
  headers: Record<string, string>,
  body: NodeJS.ReadableStream,
): Promise<http.IncomingMessage> {
  return request(new URL(url), opts, signal, headers, body, method);
}

function request(
  url: URL,
  opts: Omit<SafeFetchOptions, "maxBytes" | "timeoutMs">,
  signal: AbortSignal,
  headers: Record<string, string>,
  body?: NodeJS.ReadableStream,
  method: "GET" | "PUT" | "POST" = body ? "PUT" : "GET",
): Promise<http.IncomingMessage> {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new FetchFailure("refused", "only http and https URLs are fetched");
  if (url.username || url.password) throw new FetchFailure("refused", "URLs with credentials are refused");
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  if (opts.viaCloudflareSidecar && url.port !== "") {
    throw new FetchFailure(
      "refused",
      `port ${url.port} cannot be reached: inputs are fetched only on port ${url.protocol === "https:" ? 443 : 80}`,
    );
  }
  if (opts.viaCloudflareSidecar && url.protocol === "https:" && isIP(hostname) && !opts.trusted) {
    throw new FetchFailure(
      "refused",
      "https inputs need a host name, not an IP address (the platform routes HTTPS by its server name)",
    );
  }
  const exempt = opts.trusted === true || isAllowedPrivateHost(hostname, opts.allowedPrivateHosts);
  const bypass = opts.viaCloudflareSidecar ? sidecarBypassNetworks() : null;
  if (isIP(hostname)) {
    // A literal is the real destination, unlike a DNS answer behind the sidecar: judge it as such too.
    const refusal = answerRefusal([hostname], exempt, null) ?? (bypass && answerRefusal([hostname], exempt, bypass));
    if (refusal) throw new FetchFailure("refused", refusal);
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const agent = url.protocol === "https:" ? opts.httpsAgent : undefined;
    const lookup = exempt && !bypass ? undefined : checkedLookup(exempt, bypass);
    const req = client.request(url.href, { method, signal, agent, lookup, headers }, resolve);
    req.on("error", (err) => reject(asFetchFailure(err, signal)));
    if (body) body.pipe(req);
    else req.end();
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Why a connection may not use these addresses, or null. Directly (no sidecar) every address must
 * be public unless the host is exempt. Behind Cloudflare's sidecar no answer is judged by what it
 * looks like, since the Worker checks the real destination, except one the sidecar leaves alone:
 * that connection would skip the Worker, so even an exempt host (the service's own) may not use it.
 */
export function answerRefusal(
  addresses: readonly string[],
  exempt: boolean,
  bypass: readonly Network[] | null,
): string | null {
  if (addresses.length === 0) return "the name has no address";
  if (bypass) {
    const direct = addresses.find((a) => bypassesSidecar(a, bypass));
    return direct ? `${direct} would not go through the platform's egress` : null;
  }
  if (exempt) return null;
  return addresses.every((a) => isPublicAddress(a)) ? null : "the address is not publicly routable";
}

/** A lookup whose every answer must pass `answerRefusal` (no gap for rebinding: the connection uses these). */
const checkedLookup =
  (exempt: boolean, bypass: readonly Network[] | null) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : (options.family ?? 0);
    dnsLookup(hostname, { all: true, family }, (err, addresses) => {
      if (err) return callback(err, []);
      const refusal = answerRefusal(
        addresses.map((a) => a.address),
        exempt,
        bypass,
      );
      if (refusal) return callback(Object.assign(new Error(refusal), { code: "EREFUSED_ADDRESS" }), []);
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };

const MAX_REFUSAL_BYTES = 1024;

/** The Worker's egress says why it refused (a short text): the job's error repeats it. */
async function egressRefusalReason(res: http.IncomingMessage, url: URL): Promise<string> {
  let text = "";
  for await (const chunk of res) {
    if (text.length < MAX_REFUSAL_BYTES) text += String(chunk);
  }
  const reason = text
    .slice(0, MAX_REFUSAL_BYTES)
    .replace(/[\r\n]+/g, " ")
    .trim();
  return reason ? `the service's ${reason}` : `the service's egress refused ${url.host}`;
}

function asFetchFailure(err: unknown, signal: AbortSignal): FetchFailure {
  if (err instanceof FetchFailure) return err;
  if (signal.aborted) {
    const canceled = signal.reason instanceof Error && signal.reason.name !== "TimeoutError";
    return canceled ? new FetchFailure("canceled", "canceled") : new FetchFailure("timeout", "timed out");
  }
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "EREFUSED_ADDRESS") return new FetchFailure("refused", (err as Error).message);
  return new FetchFailure("network", code ? `network error (${code})` : "network error");
}
