import { isLocalTarget } from "../net/public-url.ts";

/**
 * Whether the Worker may send a webhook to this URL: http/https, no userinfo, and no private,
 * loopback or link-local target unless the host is in ALLOWED_PRIVATE_HOSTS (src/net/public-url.ts).
 * Workers' own outbound fetch cannot reach private networks, which covers names that resolve to
 * private addresses.
 */
export function webhookUrlProblem(raw: string, allowedPrivateHosts: readonly string[]): string | null {
  if (!URL.canParse(raw)) return "must be a valid URL";
  const url = new URL(raw);
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http or https URL";
  if (url.username || url.password) return "must not contain credentials";
  if (isLocalTarget(url, allowedPrivateHosts))
    return "must not point at a private or local address (operators can allow hosts with ALLOWED_PRIVATE_HOSTS)";
  return null;
}
