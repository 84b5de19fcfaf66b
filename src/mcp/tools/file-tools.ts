import { z } from "zod";
import { uuid } from "../../api/schemas/common.ts";
import { createFileSchema, listFilesQuerySchema } from "../../api/schemas/files.ts";
import { answerOf, idArgument } from "../tool-answers.ts";
import type { Tool } from "../tool.ts";
import { queryOf } from "./query-of.ts";

/** The file tools: an upload slot, the account's files, deleting one. */
export const fileTools: Tool[] = [
  {
    name: "create_upload",
    title: "Create an upload slot",
    description:
      'Creates a file record and a signed URL to PUT its bytes to (or part URLs with multipart: true). Once uploaded, use it as a job input: { "type": "asset", "assetId": id }.',
    input: createFileSchema,
    run: async (args, ctx) => answerOf(await ctx.api("POST", "/v1/files", args)),
  },
  {
    name: "list_files",
    title: "List files",
    description: "The account's uploads and job outputs, newest first, with download URLs, a page at a time.",
    input: listFilesQuerySchema,
    readOnly: true,
    run: async (args, ctx) => answerOf(await ctx.api("GET", `/v1/files${queryOf(args)}`)),
  },
  {
    name: "delete_file",
    title: "Delete a file",
    description: "Deletes an uploaded file or a job output, and its bytes.",
    input: z.object({ id: uuid.describe("The file's id") }),
    destructive: true,
    run: async (args, ctx) => {
      const got = idArgument(args);
      return "refused" in got ? got.refused : answerOf(await ctx.api("DELETE", `/v1/files/${got.id}`));
    },
  },
];
