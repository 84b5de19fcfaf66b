import { z } from "zod";
import { listTemplatesQuerySchema, templateName } from "../../api/schemas/templates.ts";
import { answerOf, invalidArguments, pathValue } from "../tool-answers.ts";
import { TEMPLATE_NAME_PATTERN } from "../../templates/template-limits.ts";
import { queryOf } from "./query-of.ts";
import type { Tool } from "../tool.ts";

/** What an agent reads before it builds a job: the presets and the argument policy. */
export const catalogTools: Tool[] = [
  {
    name: "list_presets",
    title: "List presets",
    description:
      "The named presets: what each makes, its inputs (required and optional), its params with their types and defaults, and its policy (limits, refusals).",
    input: z.object({}),
    readOnly: true,
    run: async (_args, ctx) => answerOf(await ctx.api("GET", "/v1/presets")),
  },
  {
    name: "list_templates",
    title: "List job templates",
    description:
      "The account's job templates: name, newest version, description and variables (type, default, bounds). Run one with run_template; get_template shows its job body.",
    input: listTemplatesQuerySchema,
    readOnly: true,
    run: async (args, ctx) => answerOf(await ctx.api("GET", `/v1/templates${queryOf(args)}`)),
  },
  {
    name: "get_template",
    title: "Get a job template",
    description: "One template: its variables and the job body they fill in (the newest version, or version).",
    input: z.object({ name: templateName, version: z.number().int().min(1).optional() }),
    readOnly: true,
    run: async (args, ctx) => {
      const name = pathValue(args.name, TEMPLATE_NAME_PATTERN);
      if (!name) return invalidArguments("name", "a template's name");
      return answerOf(await ctx.api("GET", `/v1/templates/${name}${queryOf({ version: args.version })}`));
    },
  },
  {
    name: "get_policy",
    title: "Get the argument policy",
    description:
      "What a raw job may use: the allowed options, formats, codecs, filters and protocols, and the account's limits.",
    input: z.object({}),
    readOnly: true,
    run: async (_args, ctx) => answerOf(await ctx.api("GET", "/v1/policy")),
  },
];
