/**
 * The secret a runner and its coordinator share: the runner answers nothing but `/healthz` without
 * it, and (locally) the Worker's internal routes take the runner's calls only with it. Locally the
 * dev launcher makes one per stack; each container instance gets its own (src/runner/ffmpeg-container.ts).
 */
export const RUNNER_SECRET_HEADER = "x-ffjobs-runner-secret";
export const MIN_RUNNER_SECRET_LENGTH = 32;

/** 32 random bytes, hex. */
export function newRunnerSecret(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time comparison of a presented secret with the expected one. */
export function secretMatches(presented: string | null | undefined, expected: string): boolean {
  if (!presented || presented.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= presented.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}
