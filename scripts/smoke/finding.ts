// One finding of the smoke test's platform checks: what was seen, whether it is what the service
// needs, and if not what to do. A required check that is not as expected fails `npm run smoke`.

export type Verdict = "expected" | "not-expected" | "not-applicable";

export type Finding = {
  /** What was checked, in a few words ("container DNS"). */
  check: string;
  verdict: Verdict;
  /** What was seen. */
  detail: string;
  /** One line: what to do about it (only when not as expected). */
  advice: string | null;
  /** A required check that is not as expected fails the smoke test; the others only warn. */
  required: boolean;
};

export const expected = (check: string, detail: string): Finding => ({
  check,
  verdict: "expected",
  detail,
  advice: null,
  required: true,
});

export const notExpected = (
  check: string,
  detail: string,
  advice: string,
  opts: { required?: boolean } = {},
): Finding => ({
  check,
  verdict: "not-expected",
  detail,
  advice,
  required: opts.required ?? true,
});

/** A check that means something only behind Cloudflare's sidecar, seen on a stack that has none: said, never passed silently. */
export const notApplicable = (check: string, detail: string): Finding => ({
  check,
  verdict: "not-applicable",
  detail,
  advice: null,
  required: false,
});

export function formatFinding(f: Finding): string[] {
  if (f.verdict === "expected") return [`✓ expected: ${f.check}: ${f.detail}`];
  if (f.verdict === "not-applicable") return [`- not applicable here: ${f.check}: ${f.detail}`];
  return [
    `✗ NOT expected${f.required ? "" : " (a warning: jobs still work)"}: ${f.check}: ${f.detail}`,
    `    what to do: ${f.advice}`,
  ];
}

/** The findings that fail the smoke test. */
export const failures = (findings: readonly Finding[]): Finding[] =>
  findings.filter((f) => f.verdict === "not-expected" && f.required);
