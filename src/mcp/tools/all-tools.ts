import type { Tool } from "../tool.ts";
import { catalogTools } from "./catalog-tools.ts";
import { fileTools } from "./file-tools.ts";
import { jobTools } from "./job-tools.ts";

/** Every tool the MCP server lists, in the order an agent meets them. */
export const MCP_TOOLS: Tool[] = [...catalogTools, ...jobTools, ...fileTools];
