import { z } from "zod";
import { uuid } from "./common.ts";

/** `GET /v1/account`: the key's account, its balance and its use. */
export const accountSchema = z.object({
  id: uuid,
  name: z.string(),
  /** null: unlimited. */
  creditBalance: z.number().int().nullable(),
  creditsUsed: z.number().int(),
  jobsByStatus: z.record(z.string(), z.number().int()),
});
