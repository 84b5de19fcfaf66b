import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { detailsFromZod, invalidRequest } from "./api-error.ts";
import { refuseBodyShape } from "./validation.ts";
import type { AppEnv } from "./app-env.ts";
import { ref } from "./openapi-components.ts";
import { createJobSchema, type CreateJobRequest } from "./schemas/job-request.ts";
import { presetJobSchema, type PresetJobRequest } from "./schemas/presets.ts";
import { templateJobSchema } from "./schemas/templates.ts";
import { jobFromTemplate, type TemplateRef } from "../templates/job-from-template.ts";

/** A job body as the document has it (`POST /v1/jobs` and its dry run): one of the three shapes below. */
export const JOB_BODY = {
  required: true,
  content: {
    "application/json": {
      schema: { oneOf: [ref("CreateJobRequest"), ref("PresetJobRequest"), ref("TemplateJobRequest")] },
    },
  },
};

/**
 * `POST /v1/jobs` takes three shapes: a raw job (`ffmpegArgs`, the default), a preset job
 * (`"mode": "preset"`), or a template's (`template`, `vars`), which becomes one of the other two and
 * is checked as they are. Each is validated against its own schema, so its errors name its own fields.
 */
export const validateCreateJob = createMiddleware<AppEnv>(async (c, next) => {
  const body: unknown = await c.req.json().catch(() => {
    throw new HTTPException(400, { message: "Malformed JSON in request body" });
  });
  const { job, template } = await resolveJobBody(c.env.DB, c.get("account").id, body);
  c.set("createJob", job);
  if (template) c.set("template", template);
  await next();
});

/** A job body in its shape, a template's filled in first; and the template it came from. */
export async function resolveJobBody(
  db: D1Database,
  accountId: string,
  body: unknown,
): Promise<{ job: CreateJobRequest | PresetJobRequest; template?: TemplateRef }> {
  if (typeof body !== "object" || body === null || !Object.hasOwn(body, "template")) {
    return { job: parseCreateJobBody(body) };
  }
  refuseBodyShape(body);
  const parsed = templateJobSchema.safeParse(body);
  if (!parsed.success) throw invalidRequest(detailsFromZod(parsed.error.issues));
  const filled = await jobFromTemplate(db, accountId, parsed.data);
  return { job: parseCreateJobBody(filled.body), template: filled.template };
}

/** A job body in its shape (raw or preset), or the 400 that says what is wrong with it. */
export function parseCreateJobBody(body: unknown): CreateJobRequest | PresetJobRequest {
  refuseBodyShape(body);
  const isPreset = typeof body === "object" && body !== null && (body as { mode?: unknown }).mode === "preset";
  const parsed = (isPreset ? presetJobSchema : createJobSchema).safeParse(body);
  const commandIssue = isPreset ? [] : commandShapeIssues(body as Record<string, unknown>);
  if (!parsed.success || commandIssue.length) {
    throw invalidRequest([...commandIssue, ...(parsed.success ? [] : detailsFromZod(parsed.error.issues))]);
  }
  return parsed.data;
}

/** A raw job has one command (`ffmpegArgs`) or several (`steps`): a missing one is reported at `ffmpegArgs`. */
function commandShapeIssues(body: Record<string, unknown>) {
  if (typeof body !== "object" || body === null) return [];
  const hasArgs = body.ffmpegArgs !== undefined;
  const hasSteps = body.steps !== undefined;
  if (hasArgs && hasSteps)
    return [
      { path: ["steps"], message: "give either ffmpegArgs (one command) or steps (several), not both", code: "custom" },
    ];
  if (!hasArgs && !hasSteps)
    return [
      {
        path: ["ffmpegArgs"],
        message: "Required: the command's arguments (or `steps` for several commands)",
        code: "invalid_type",
      },
    ];
  return [];
}
