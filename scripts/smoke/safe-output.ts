// What the smoke test prints comes partly from the deployment it tests (error bodies, codes, a report's
// details). A deployment, or a proxy in front of it, that echoes the request's Authorization header
// back would have the smoke test print the API key (found by an attack pass: "smoke test FAILED: bad key
// Bearer ffj_…"), to a terminal or a CI log. So every line it prints, and the message it fails with,
// has the secrets it holds replaced, and is cut to a length a terminal can show.

/** Longest line printed: a finding's detail (every DNS answer, say) is well under it. */
export const MAX_PRINTED_LINE_CHARS = 4000;
export const REDACTED = "<the API key>";

export function redacted(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join(REDACTED);
  return out.length > MAX_PRINTED_LINE_CHARS
    ? `${out.slice(0, MAX_PRINTED_LINE_CHARS)}… (${out.length - MAX_PRINTED_LINE_CHARS} more characters)`
    : out;
}

/** `log`, printing every line redacted. */
export function redactingLog(log: (line: string) => void, secrets: readonly string[]): (line: string) => void {
  return (line) => log(redacted(line, secrets));
}

/** An error whose message is redacted; thrown in place of `err`, which may quote the deployment's answer. */
export function redactedError(err: unknown, secrets: readonly string[]): Error {
  const message = err instanceof Error ? err.message : String(err);
  return new Error(redacted(message, secrets));
}
