import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError, invalidRequest, unknownCursor } from "../api-error.ts";
import { utf8Bytes } from "../../jobs/store/stored-bytes.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json, jsonBody } from "../openapi-responses.ts";
import {
  createTemplateSchema,
  getTemplateQuerySchema,
  listTemplatesQuerySchema,
  templateNameParamSchema,
  updateTemplateSchema,
  type CreateTemplateRequest,
} from "../schemas/templates.ts";
import { loadConfig } from "../../config.ts";
import { checkTemplate } from "../../templates/check-template.ts";
import {
  deleteTemplate,
  insertTemplate,
  insertTemplateVersion,
  listTemplates,
  readTemplate,
  type TemplateContent,
} from "../../templates/template-store.ts";
import { templateView } from "../../templates/template-view.ts";
import {
  MAX_TEMPLATE_BYTES,
  MAX_TEMPLATES_PER_ACCOUNT,
  TEMPLATE_NAME_PATTERN,
} from "../../templates/template-limits.ts";

const NAME_PARAM = { params: templateNameParamSchema };

/** The template checked as the job it makes (src/templates/check-template.ts), then as D1 keeps it. */
async function checkedContent(c: Context<AppEnv>, t: Omit<CreateTemplateRequest, "name">): Promise<TemplateContent> {
  const content = {
    description: t.description ?? null,
    variablesJson: JSON.stringify(t.variables),
    jobJson: JSON.stringify(t.job),
  };
  const bytes = utf8Bytes(content.variablesJson) + utf8Bytes(content.jobJson);
  if (bytes > MAX_TEMPLATE_BYTES) {
    throw invalidRequest([
      {
        path: ["job"],
        message: `the job and variables are ${bytes} bytes as JSON, more than ${MAX_TEMPLATE_BYTES}`,
        code: "custom",
      },
    ]);
  }
  await checkTemplate(c.env, loadConfig(c.env), c.get("account").id, t, new URL(c.req.url).origin);
  return content;
}

const createTemplate = operation(
  createRoute({
    method: "post",
    path: "/",
    operationId: "createTemplate",
    summary: "Keep a job body by name, with declared variables (version 1)",
    request: { body: jsonBody(createTemplateSchema) },
    responses: {
      201: json("Template", "The template"),
      ...errors({
        400: ["INVALID_REQUEST"],
        409: ["TEMPLATE_EXISTS", "TEMPLATE_LIMIT_REACHED"],
        413: ["PAYLOAD_TOO_LARGE"],
      }),
    },
  }),
  async (c) => {
    const { name, ...template } = c.req.valid("json");
    const accountId = c.get("account").id;
    const row = await insertTemplate(c.env.DB, accountId, name, await checkedContent(c, template), new Date());
    if (!row) {
      if (await readTemplate(c.env.DB, accountId, name))
        throw new ApiError(
          "TEMPLATE_EXISTS",
          `A template named ${name} exists: PUT /v1/templates/${name} adds a version`,
        );
      throw new ApiError("TEMPLATE_LIMIT_REACHED", `An account keeps at most ${MAX_TEMPLATES_PER_ACCOUNT} templates`);
    }
    return c.json(templateView(row), 201);
  },
);

const updateTemplate = operation(
  createRoute({
    method: "put",
    path: "/{name}",
    operationId: "updateTemplate",
    summary: "Give a template a new version (jobs made from earlier ones keep what they ran)",
    request: { ...NAME_PARAM, body: jsonBody(updateTemplateSchema) },
    responses: {
      200: json("Template", "The new version"),
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 413: ["PAYLOAD_TOO_LARGE"] }),
    },
  }),
  async (c) => {
    const { name } = c.req.valid("param");
    const accountId = c.get("account").id;
    const content = await checkedContent(c, c.req.valid("json"));
    const row = await insertTemplateVersion(c.env.DB, accountId, name, content, new Date());
    if (!row) throw new ApiError("NOT_FOUND", "No template with this name");
    return c.json(templateView(row));
  },
);

const getTemplate = operation(
  createRoute({
    method: "get",
    path: "/{name}",
    operationId: "getTemplate",
    summary: "A template: its newest version, or `?version=`",
    request: { ...NAME_PARAM, query: getTemplateQuerySchema },
    responses: { 200: json("Template", "The template"), ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"] }) },
  }),
  async (c) => {
    const row = await readTemplate(
      c.env.DB,
      c.get("account").id,
      c.req.valid("param").name,
      c.req.valid("query").version,
    );
    if (!row) throw new ApiError("NOT_FOUND", "No template with this name (or version)");
    return c.json(templateView(row));
  },
);

const listAccountTemplates = operation(
  createRoute({
    method: "get",
    path: "/",
    operationId: "listTemplates",
    summary: "The account's templates by name, each its newest version (without its job body)",
    request: { query: listTemplatesQuerySchema },
    responses: { 200: json("TemplateList", "A page of templates"), ...errors({ 400: ["INVALID_REQUEST"] }) },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const after = q.cursor === undefined ? "" : decodeNameCursor(q.cursor);
    if (after === null) throw unknownCursor();
    const page = await listTemplates(c.env.DB, c.get("account").id, after, q.limit);
    const last = page.rows.at(-1);
    return c.json({
      data: page.rows.map((row) => {
        const { job: _, ...summary } = templateView(row);
        return summary;
      }),
      nextCursor: page.more && last ? btoa(last.name) : null,
    });
  },
);

const removeTemplate = operation(
  createRoute({
    method: "delete",
    path: "/{name}",
    operationId: "deleteTemplate",
    summary: "Delete a template, every version (jobs made from it are not touched) (204)",
    request: NAME_PARAM,
    responses: { 204: { description: "Deleted" }, ...errors({ 404: ["NOT_FOUND"] }) },
  }),
  async (c) => {
    if (!(await deleteTemplate(c.env.DB, c.get("account").id, c.req.valid("param").name)))
      throw new ApiError("NOT_FOUND", "No template with this name");
    return c.body(null, 204);
  },
);

/** A page's cursor: the last name, base64; null when it is not one this API wrote. */
function decodeNameCursor(cursor: string): string | null {
  try {
    const name = atob(cursor);
    return TEMPLATE_NAME_PATTERN.test(name) ? name : null;
  } catch {
    return null;
  }
}

export const templateRoutes = new OpenAPIHono<AppEnv>();
serveOperations(templateRoutes, createTemplate, listAccountTemplates, getTemplate, updateTemplate, removeTemplate);
