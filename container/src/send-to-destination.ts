import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { RunnerOutput } from "../../src/runner/runner-protocol.ts";
import { egressOptions, FetchFailure, putUrl } from "./safe-fetch.ts";
import type { RunnerSettings } from "./settings.ts";

const SEND_TIMEOUT_MS = 30 * 60_000;
/** What is kept of a destination's refusal (S3's XML error names its Code and Message in its first lines). */
const ANSWER_CHARS = 300;

export class DestinationRefused extends Error {}

/**
 * PUTs an output to the user's own storage (its presigned or SAS URL), under the address policy of
 * URL inputs (a destination is a URL the client chose), with the headers the client gave; answers the
 * storage's ETag and the file's SHA-256, computed on the bytes as they are sent. A refusal says what
 * the destination answered, its status and the start of its body.
 */
export async function sendToDestination(path: string, output: RunnerOutput, settings: RunnerSettings, allowedPrivateHosts: string[], canceled: AbortSignal): Promise<{ size: number; etag: string | null; sha256: string }> {
  const { size } = await stat(path);
  const hash = createHash("sha256");
  const body = createReadStream(path);
  body.on("data", (chunk) => hash.update(chunk));
  const headers = { "content-type": output.contentType, ...output.destination?.headers, "content-length": String(size) };
  const signal = AbortSignal.any([AbortSignal.timeout(SEND_TIMEOUT_MS), canceled]);
  let res;
  try {
    res = await putUrl(output.uploadUrl, { allowedPrivateHosts, ...egressOptions(settings) }, signal, headers, body);
  } catch (err) {
    body.destroy();
    throw new DestinationRefused(err instanceof FetchFailure ? err.message : "network error");
  }
  const status = res.statusCode ?? 0;
  let answer = "";
  for await (const chunk of res) if (answer.length < ANSWER_CHARS) answer += String(chunk);
  if (status < 200 || status >= 300) {
    const said = answer.replace(/\s+/g, " ").trim().slice(0, ANSWER_CHARS);
    throw new DestinationRefused(`${new URL(output.uploadUrl).host} answered HTTP ${status}${said ? `: ${said}` : ""}`);
  }
  const etag = typeof res.headers.etag === "string" ? res.headers.etag : null;
  return { size, etag, sha256: hash.digest("hex") };
}
