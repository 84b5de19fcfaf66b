// npm run smoke -- --url <deployed URL> [--key <API key>] [--input-url <public media URL>] [--public-host <name>] [--wait-minutes N]
// Without --key (or FFJOBS_API_KEY) it makes an operator's key of its own in the remote D1 and revokes it
// at the end. Exits 1 when the service fails or a required platform check is not as expected.
import { parseArgs } from "node:util";
import { realWrangler } from "./deploy/run-wrangler.ts";
import { createKeySql, newKey, revokeKeySql } from "./api-key-sql.ts";
import { D1_DATABASE } from "./deploy/resources.ts";
import { realClock } from "./smoke/cold-start.ts";
import { runSmoke } from "./smoke/run-smoke.ts";
import { failures, type Finding } from "./smoke/finding.ts";

/** A first deploy's containers can take several minutes to answer; past this the test fails. */
export const DEFAULT_WAIT_MINUTES = 15;
const RETRY_EVERY_MS = 15_000;

export async function smokeMain(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string" },
      key: { type: "string" },
      "input-url": { type: "string" },
      "public-host": { type: "string" },
      "wait-minutes": { type: "string" },
      "retry-seconds": { type: "string" },
    },
  });
  if (!values.url) {
    console.error(
      "usage: npm run smoke -- --url <deployed URL> [--key <operator API key>] [--input-url <media URL>] [--public-host <name>] [--wait-minutes N]",
    );
    return 2;
  }
  const waitMinutes = Number(values["wait-minutes"] ?? DEFAULT_WAIT_MINUTES);
  const retryMs = values["retry-seconds"] ? Number(values["retry-seconds"]) * 1000 : RETRY_EVERY_MS;
  if (!(waitMinutes > 0) || !(retryMs > 0))
    throw new Error("--wait-minutes and --retry-seconds must be positive numbers");
  const log = (line: string) => console.log(line);
  const patience = { budgetMs: waitMinutes * 60_000, retryEveryMs: retryMs, clock: realClock, log };
  const given = values.key ?? process.env.FFJOBS_API_KEY;
  const options = { url: values.url, inputUrl: values["input-url"], publicHost: values["public-host"] };
  const exitCode = (findings: Finding[]) => (failures(findings).length ? 1 : 0);
  if (given) return exitCode(await runSmoke({ ...options, apiKey: given }, { fetch, patience }));
  const wrangler = realWrangler();
  const key = await newKey();
  const d1 = (sql: string) => {
    const r = wrangler(["d1", "execute", D1_DATABASE.binding, "--remote", "--command", sql]);
    if (r.status !== 0) throw new Error(`wrangler d1 execute failed:\n${r.stdout}${r.stderr}`);
  };
  log("making a smoke-test operator API key in the remote D1 (pass --key to use yours)");
  d1(createKeySql(key, null, true));
  try {
    return exitCode(await runSmoke({ ...options, apiKey: key.key }, { fetch, patience }));
  } finally {
    d1(revokeKeySql({ hash: key.hash, at: new Date().toISOString() }));
  }
}

if (import.meta.main) {
  smokeMain(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`smoke test FAILED: ${err.message}`);
      process.exit(1);
    },
  );
}
