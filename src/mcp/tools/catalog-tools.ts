import { z } from "zod";
import { answerOf } from "../tool-answers.ts";
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
    name: "get_policy",
    title: "Get the argument policy",
    description:
      "What a raw job may use: the allowed options, formats, codecs, filters and protocols, and the account's limits.",
    input: z.object({}),
    readOnly: true,
    run: async (_args, ctx) => answerOf(await ctx.api("GET", "/v1/policy")),
  },
];
