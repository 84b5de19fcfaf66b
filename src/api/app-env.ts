import type { Account } from "../auth/account-store.ts";
import type { Env } from "../env.ts";
import type { CreateJobRequest } from "./schemas/job-request.ts";
import type { PresetJobRequest } from "./schemas/presets.ts";
import type { TemplateRef } from "../templates/job-from-template.ts";

/** Hono's typing for this app: the Worker bindings plus what middleware puts on the context. */
export type AppEnv = {
  Bindings: Env;
  Variables: { account: Account; createJob: CreateJobRequest | PresetJobRequest; template?: TemplateRef };
};
