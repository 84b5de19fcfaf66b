import type { TemplateVariable } from "../api/schemas/templates.ts";

export type TemplateValue = string | number | boolean;
export type FillIssue = { path: string[]; message: string };

/** A number as text: decimal only (not "0x10", not " 7 ", not "Infinity"). */
const DECIMAL = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

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
          : typeof given === "string" && DECIMAL.test(given)
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
