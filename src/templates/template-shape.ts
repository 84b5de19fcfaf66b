import type { TemplateVariable } from "../api/schemas/templates.ts";
import { arrayInputName } from "../jobs/request/placeholders.ts";
import type { FillIssue } from "./variable-values.ts";

/** A template's problems reported at most this many times: one 1 MiB body could name a thousand thousand. */
const MAX_SHAPE_ISSUES = 100;

/**
 * What is wrong with a template's shape, before its job is checked: a variable named like one of the
 * job's inputs, outputs or scratch files (`{{name}}` would mean both), one declared and never used, and
 * `{{…}}` outside an argument list that names no variable (only arguments name files).
 */
export function templateShapeIssues(job: Record<string, unknown>, variables: Record<string, TemplateVariable>) {
  const issues: FillIssue[] = [];
  const listed = Array.isArray(job.input) ? job.input.map((_, i) => arrayInputName(i)) : [];
  const fileNames = new Set([
    ...listed,
    ...["inputs", "outputs", "scratch"].flatMap((k) => Object.keys(objectAt(job, k))),
  ]);
  const used = new Set<string>();
  const scan = (node: unknown, path: string[], inArgs: boolean): void => {
    if (typeof node === "string") {
      for (const m of node.matchAll(/\{\{([^{}]*)\}\}/g)) {
        if (Object.hasOwn(variables, m[1])) used.add(m[1]);
        else if (
          !inArgs &&
          issues.length < MAX_SHAPE_ISSUES &&
          issues.at(-1)?.path.join(".") !== ["job", ...path].join(".")
        ) {
          issues.push({ path: ["job", ...path], message: `{{${m[1]}}} names no variable of the template` });
        }
      }
    } else if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) scan(item, [...path, String(i)], inArgs);
    } else if (typeof node === "object" && node !== null)
      for (const [key, value] of Object.entries(node)) scan(value, [...path, key], key === "ffmpegArgs");
  };
  scan(job, [], false);
  for (const name of Object.keys(variables)) {
    if (fileNames.has(name))
      issues.push({ path: ["variables", name], message: "an input, output or scratch file of the job has this name" });
    else if (!used.has(name))
      issues.push({ path: ["variables", name], message: `the job never uses it ({{${name}}})` });
  }
  return issues.slice(0, MAX_SHAPE_ISSUES);
}

function objectAt(job: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = job[key];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
