import type { TemplateVariable } from "../api/schemas/templates.ts";

export type TemplateValue = string | number | boolean;
export type FillIssue = { path: string[]; message: string };

const VARIABLE = /\{\{([A-Za-z_][A-Za-z0-9_]{0,63})\}\}/g;
const WHOLE_VARIABLE = /^\{\{([A-Za-z_][A-Za-z0-9_]{0,63})\}\}$/;

/**
 * The template's variables' values from a job's `vars`: each declared one given or defaulted, each
 * checked against its type and bounds; a name the template does not declare is refused. Strings stand
 * for numbers and booleans too ("720", "true": what a command line or a form sends). A value may not
 * carry `{{` or `}}`: it is put in once and never read again as a placeholder.
 */
export function variableValues(
  variables: Record<string, TemplateVariable>,
  vars: Record<string, TemplateValue>,
  /** The variables the job as sent still uses (an input sent in place of the template's drops its own). */
  needed: ReadonlySet<string> = new Set(Object.keys(variables)),
): { values: Record<string, TemplateValue> } | { issues: FillIssue[] } {
  const issues: FillIssue[] = [];
  for (const name of Object.keys(vars)) {
    if (!Object.hasOwn(variables, name))
      issues.push({ path: ["vars", name], message: "the template declares no such variable" });
  }
  const values: Record<string, TemplateValue> = {};
  for (const [name, declared] of Object.entries(variables)) {
    const given = Object.hasOwn(vars, name) ? vars[name] : declared.default;
    if (given === undefined && !needed.has(name)) continue;
    if (given === undefined) {
      issues.push({ path: ["vars", name], message: `required (a ${declared.type}; the template gives no default)` });
      continue;
    }
    const checked = typedValue(declared, given);
    if ("problem" in checked) issues.push({ path: ["vars", name], message: checked.problem });
    else values[name] = checked.value;
  }
  return issues.length ? { issues } : { values };
}

function typedValue(declared: TemplateVariable, given: TemplateValue): { value: TemplateValue } | { problem: string } {
  if (typeof given === "string" && /\{\{|\}\}/.test(given)) return { problem: "a value may not contain {{ or }}" };
  switch (declared.type) {
    case "string":
    case "url": {
      if (typeof given !== "string") return { problem: `must be a ${declared.type}` };
      if (declared.enum && !declared.enum.includes(given))
        return { problem: `must be one of ${declared.enum.map((v) => JSON.stringify(v)).join(", ")}` };
      if (declared.type === "url" && !(/^https?:\/\//i.test(given) && URL.canParse(given)))
        return { problem: "must be an http or https URL" };
      return { value: given };
    }
    case "boolean": {
      if (typeof given === "boolean") return { value: given };
      if (given === "true" || given === "false") return { value: given === "true" };
      return { problem: "must be true or false" };
    }
    default: {
      const n =
        typeof given === "number"
          ? given
          : typeof given === "string" && given.trim() !== ""
            ? Number(given)
            : Number.NaN;
      if (!Number.isFinite(n)) return { problem: `must be a${declared.type === "integer" ? "n integer" : " number"}` };
      if (declared.type === "integer" && !Number.isInteger(n)) return { problem: "must be an integer" };
      if (declared.minimum !== undefined && n < declared.minimum) return { problem: `at least ${declared.minimum}` };
      if (declared.maximum !== undefined && n > declared.maximum) return { problem: `at most ${declared.maximum}` };
      return { value: n };
    }
  }
}

/**
 * The template's job body with the values put in: in every string (argument, URL, file name, metadata
 * value, parameter; never a key) each `{{variable}}` the template declares becomes its value as text;
 * a string that is one variable alone becomes the value itself (a number stays a number, as a preset's
 * parameter wants), except in an argument list, which holds text. Other `{{…}}` (inputs, outputs) stay.
 */
export function fillTemplate(job: unknown, values: Record<string, TemplateValue>): unknown {
  const has = (name: string) => Object.hasOwn(values, name);
  const fill = (node: unknown, inArgs: boolean): unknown => {
    if (typeof node === "string") {
      const whole = WHOLE_VARIABLE.exec(node);
      if (whole && has(whole[1])) return inArgs ? String(values[whole[1]]) : values[whole[1]];
      return node.replace(VARIABLE, (text, name: string) => (has(name) ? String(values[name]) : text));
    }
    if (Array.isArray(node)) return node.map((item) => fill(item, inArgs));
    if (typeof node === "object" && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fill(value, key === "ffmpegArgs")]));
    }
    return node;
  };
  return fill(job, false);
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

/** A stand-in value per variable, to check a template at its creation: its default, else one of its type. */
export function sampleValues(variables: Record<string, TemplateVariable>): Record<string, TemplateValue> {
  return Object.fromEntries(Object.entries(variables).map(([name, v]) => [name, v.default ?? sampleOf(v)]));
}

function sampleOf(v: TemplateVariable): TemplateValue {
  switch (v.type) {
    case "string":
      return v.enum?.[0] ?? "sample";
    case "url":
      return "https://example.com/sample.mp4";
    case "boolean":
      return false;
    default:
      return v.minimum ?? v.maximum ?? 1;
  }
}

/**
 * What is wrong with a template's shape, before its job is checked: a variable named like one of the
 * job's inputs, outputs or scratch files (`{{name}}` would mean both), one declared and never used, and
 * `{{…}}` outside an argument list that names no variable (only arguments name files).
 */
export function templateShapeIssues(job: Record<string, unknown>, variables: Record<string, TemplateVariable>) {
  const issues: FillIssue[] = [];
  const fileNames = new Set(["inputs", "outputs", "scratch"].flatMap((k) => Object.keys(objectAt(job, k))));
  const used = new Set<string>();
  const scan = (node: unknown, path: string[], inArgs: boolean): void => {
    if (typeof node === "string") {
      for (const m of node.matchAll(/\{\{([^{}]*)\}\}/g)) {
        if (Object.hasOwn(variables, m[1])) used.add(m[1]);
        else if (!inArgs)
          issues.push({ path: ["job", ...path], message: `{{${m[1]}}} names no variable of the template` });
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
  return issues;
}

function objectAt(job: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = job[key];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
