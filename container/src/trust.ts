import { existsSync, readFileSync } from "node:fs";
import https from "node:https";
import { rootCertificates } from "node:tls";

/**
 * Where Cloudflare writes the CA of its HTTPS interception into a container (interceptHttps): every
 * https request the runner makes is answered by a certificate that CA signed.
 */
export const CLOUDFLARE_INTERCEPTION_CA_FILE = "/etc/cloudflare/certs/cloudflare-containers-ca.crt";

const agents = new Map<string, https.Agent>();

/**
 * An agent that trusts the public roots plus the CA in `caFile`, or undefined (public roots only)
 * while that file does not exist. Read on first use, not at start, so a CA written after the
 * runner started is still picked up.
 */
export function trustedAgent(caFile: string): https.Agent | undefined {
  const known = agents.get(caFile);
  if (known) return known;
  if (!existsSync(caFile)) return undefined;
  const agent = new https.Agent({ ca: [...rootCertificates, readFileSync(caFile, "utf8")] });
  agents.set(caFile, agent);
  return agent;
}
