import type { Env } from "../../src/env.ts";

declare global {
  namespace Cloudflare {
    interface Env extends import("../../src/env.ts").Env {
      TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    }
  }
}
export type { Env };
