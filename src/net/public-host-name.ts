/**
 * A name the platform report may look up and try to reach from a runner (POST /v1/admin/platform-report):
 * a DNS host name of at least two labels whose last is alphabetic, lower case, so never an IP address
 * (an IP literal skips the resolver, which is what the report asks about). Names under the special-use
 * domains (RFC 6761, 6762, 7686, 8375, 9476 and ICANN's `.internal`: `localhost`, `.local`, `.test`, …) are refused: they
 * never name a public host, so a finding about them would say nothing of the platform. Zod-free: the
 * runner checks the same rule on what the Worker sends it.
 */
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const HOST_NAME = new RegExp(`^(?:${LABEL}\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`);
const MAX_NAME_LENGTH = 253;
const SPECIAL_USE_SUFFIXES = ["localhost", "local", "internal", "test", "invalid", "example", "onion", "arpa", "alt"];

export const DEFAULT_PUBLIC_PROBE_HOST = "example.com";

export function isPublicProbeName(name: string): boolean {
  if (name.length > MAX_NAME_LENGTH || !HOST_NAME.test(name)) return false;
  const tld = name.slice(name.lastIndexOf(".") + 1);
  return !SPECIAL_USE_SUFFIXES.includes(tld);
}

/**
 * The service's own made-up names, which only the Worker's egress handler answers: runners' notifications
 * (src/runner/runner-notify.ts) and directory-output files (runner-files.ts). Here, free of the Worker's
 * modules, so npm run smoke knows which names a platform report must cover.
 */
export const NOTIFY_HOST = "runner-notify.ffjobs.internal";
export const FILES_HOST = "runner-files.ffjobs.internal";

const INTERNAL_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.ffjobs\.internal$/;

export function isServiceInternalName(name: string): boolean {
  return INTERNAL_NAME.test(name);
}
