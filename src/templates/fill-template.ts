import { MAX_ARG_LENGTH_CHARS, MAX_REQUEST_BODY_BYTES } from "../jobs/request/limits.ts";
import type { FillIssue, TemplateValue } from "./variable-values.ts";

const VARIABLE = /\{\{([A-Za-z_][A-Za-z0-9_]{0,63})\}\}/g;
const WHOLE_VARIABLE = /^\{\{([A-Za-z_][A-Za-z0-9_]{0,63})\}\}$/;

/** A filled string's most characters (an argument's; URLs and names have their own, smaller, limits). */
export const MAX_FILLED_STRING_CHARS = MAX_ARG_LENGTH_CHARS;
/** A filled job's most characters of strings, all told: what one request body may carry. */
export const MAX_FILLED_TOTAL_CHARS = MAX_REQUEST_BODY_BYTES;

/**
 * The template's job body with the values put in: in every string (argument, URL, file name, metadata
 * value, parameter; never a key) each `{{variable}}` the template declares becomes its value as text;
 * a string that is one variable alone becomes the value itself (a number stays a number, as a preset's
 * parameter wants), except in an argument list, which holds text. Other `{{…}}` (inputs, outputs) stay.
 * Each string's length is worked out before it is built: 2048 characters put into each of the ~200,000
 * `{{v}}` a 1 MiB template holds would be 400 M characters, far past an isolate's 128 MB, so a string
 * that would be over MAX_FILLED_STRING_CHARS, or a body over MAX_FILLED_TOTAL_CHARS, is refused unbuilt.
 */
export function fillTemplate(
  job: unknown,
  values: Record<string, TemplateValue>,
): { body: unknown } | { issues: FillIssue[] } {
  const has = (name: string) => Object.hasOwn(values, name);
  let total = 0;
  let issue: FillIssue | null = null;
  const fill = (node: unknown, path: string[], inArgs: boolean): unknown => {
    if (issue) return null;
    if (typeof node === "string") {
      const whole = WHOLE_VARIABLE.exec(node);
      if (whole && has(whole[1])) return inArgs ? String(values[whole[1]]) : values[whole[1]];
      let length = node.length;
      for (const m of node.matchAll(VARIABLE)) if (has(m[1])) length += String(values[m[1]]).length - m[0].length;
      total += length;
      if (length > MAX_FILLED_STRING_CHARS || total > MAX_FILLED_TOTAL_CHARS) {
        issue = {
          path: ["job", ...path],
          message:
            length > MAX_FILLED_STRING_CHARS
              ? `with these values it would be ${length} characters, more than ${MAX_FILLED_STRING_CHARS}`
              : `with these values the job would be more than ${MAX_FILLED_TOTAL_CHARS} characters`,
        };
        return null;
      }
      return node.replace(VARIABLE, (text, name: string) => (has(name) ? String(values[name]) : text));
    }
    if (Array.isArray(node)) return node.map((item, i) => fill(item, [...path, String(i)], inArgs));
    if (typeof node === "object" && node !== null) {
      return Object.fromEntries(
        Object.entries(node).map(([key, value]) => [key, fill(value, [...path, key], key === "ffmpegArgs")]),
      );
    }
    return node;
  };
  const body = fill(job, [], false);
  return issue ? { issues: [issue] } : { body };
}

/** The variables' names a job body uses, wherever they are. */
export function usedVariables(job: unknown): Set<string> {
  const used = new Set<string>();
  const scan = (node: unknown): void => {
    if (typeof node === "string") for (const m of node.matchAll(VARIABLE)) used.add(m[1]);
    else if (Array.isArray(node)) for (const item of node) scan(item);
    else if (typeof node === "object" && node !== null) for (const value of Object.values(node)) scan(value);
  };
  scan(job);
  return used;
}
