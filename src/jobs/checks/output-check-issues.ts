import type { JobSpec, RequestIssue } from "../request/job-request.ts";
import { inputsNamedByChecks } from "./check-facts.ts";

/**
 * What the checks' schema cannot see: an input a check names (`durationSeconds.asInput`,
 * `quality.against`) must be one of the job's. A split job's output is made by its join, which reads
 * the segments, not the input: a check that compares with an input is refused there (for now).
 */
export function outputCheckIssues(spec: Pick<JobSpec, "inputs" | "outputs" | "parallel">): RequestIssue[] {
  const issues: RequestIssue[] = [];
  for (const [name, output] of Object.entries(spec.outputs)) {
    if (!output.checks) continue;
    const at = (field: string) => ["outputs", name, "checks", field];
    const fieldOf = (input: string) =>
      output.checks?.durationSeconds?.asInput === input ? "durationSeconds" : "quality";
    for (const input of inputsNamedByChecks(output.checks)) {
      if (!Object.hasOwn(spec.inputs, input))
        issues.push({ path: at(fieldOf(input)), message: `the job has no input "${input}" to compare with` });
      else if (spec.parallel)
        issues.push({
          path: at(fieldOf(input)),
          message: "a split job's output is measured on its join, which does not read the input: compare with a number",
        });
    }
  }
  return issues;
}
