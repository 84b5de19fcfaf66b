import { z } from "zod";
import { PROTOTYPE_NAME_MESSAGE, PROTOTYPE_NAMES } from "../../jobs/request/placeholders.ts";
import {
  MAX_TEMPLATE_VARIABLES,
  MAX_TEMPLATE_VALUE_CHARS,
  TEMPLATE_NAME_PATTERN,
  VARIABLE_NAME_PATTERN,
} from "../../templates/template-limits.ts";
import { pageQuery, timestamp } from "./common.ts";
import { namedInputs } from "./job-request.ts";

/* Job templates: a job body kept by name, with declared variables (docs/api.md, Job templates). */

export const templateName = z
  .string()
  .regex(TEMPLATE_NAME_PATTERN, "a template's name is 1-64 letters, digits, . _ -, starting with a letter or digit");

const scalar = z.union([z.string().max(MAX_TEMPLATE_VALUE_CHARS), z.number(), z.boolean()]);

/** A variable's declaration: its type, an optional default (no default: the job must give it), and bounds. */
export const templateVariableSchema = z
  .object({
    type: z.enum(["string", "number", "integer", "boolean", "url"]),
    description: z.string().max(500).optional(),
    default: scalar.optional(),
    /** string: the only values allowed. */
    enum: z.array(z.string().max(128)).min(1).max(32).optional(),
    /** number, integer: bounds, inclusive. */
    minimum: z.number().optional(),
    maximum: z.number().optional(),
  })
  .strict()
  .refine((v) => v.enum === undefined || v.type === "string", {
    path: ["enum"],
    message: "only a string variable takes an enum",
  })
  .refine((v) => (v.minimum === undefined && v.maximum === undefined) || v.type === "number" || v.type === "integer", {
    path: ["minimum"],
    message: "only a number or integer variable takes a minimum or maximum",
  })
  .refine((v) => v.minimum === undefined || v.maximum === undefined || v.minimum <= v.maximum, {
    path: ["maximum"],
    message: "at least the minimum",
  });
export type TemplateVariable = z.infer<typeof templateVariableSchema>;

export const templateVariablesSchema = z
  .record(
    z
      .string()
      .regex(VARIABLE_NAME_PATTERN, "a variable's name is 1-64 letters, digits or _, not starting with a digit")
      .refine((n) => !PROTOTYPE_NAMES.has(n), PROTOTYPE_NAME_MESSAGE),
    templateVariableSchema,
  )
  .refine((m) => Object.keys(m).length <= MAX_TEMPLATE_VARIABLES, `at most ${MAX_TEMPLATE_VARIABLES} variables`);

/** `POST /v1/templates` and `PUT /v1/templates/{name}` (without `name`: the path has it). */
export const createTemplateSchema = z
  .object({
    name: templateName,
    description: z.string().max(2000).optional(),
    variables: templateVariablesSchema.default({}),
    /** A job body as `POST /v1/jobs` takes it (raw, steps or preset), `{{variable}}` in its strings. */
    job: z.record(z.string(), z.unknown()),
  })
  .strict();
export type CreateTemplateRequest = z.infer<typeof createTemplateSchema>;
export const updateTemplateSchema = createTemplateSchema.omit({ name: true });

/**
 * `POST /v1/jobs` from a template: its name, the version (the newest by default), the variables' values,
 * and inputs that stand in for the template's own of the same names (an uploaded file for a URL).
 */
export const templateJobSchema = z
  .object({
    template: templateName,
    version: z.number().int().min(1).optional(),
    vars: z.record(z.string(), scalar).optional(),
    inputs: namedInputs.optional(),
  })
  .strict();
export type TemplateJobRequest = z.infer<typeof templateJobSchema>;

export const templateSchema = z.object({
  name: z.string(),
  version: z.number().int(),
  description: z.string().nullable(),
  variables: z.record(z.string(), templateVariableSchema),
  job: z.record(z.string(), z.unknown()),
  createdAt: timestamp,
});
export const templateListSchema = z.object({ data: z.array(templateSchema), nextCursor: z.string().nullable() });
export const templateNameParamSchema = z.object({ name: z.string() });
export const getTemplateQuerySchema = z.object({ version: z.coerce.number().int().min(1).optional() }).strict();
export const listTemplatesQuerySchema = z.object({ ...pageQuery }).strict();
