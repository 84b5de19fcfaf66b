import { applyD1Migrations, env } from "cloudflare:test";
import { enforceD1RowSize } from "../../src/platform/d1-row-size.ts";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
// Rows over D1's 2,000,000 bytes are refused here as D1 refuses them (local SQLite takes larger ones).
await enforceD1RowSize(env.DB);
