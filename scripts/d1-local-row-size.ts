// The local stack's D1 refuses rows over D1's 2,000,000 bytes, as production does
// (src/platform/d1-row-size.ts): the tables and their columns are read from the migrations, applied
// to an in-memory SQLite here (Node's node:sqlite; on a Node without it, from the local database
// with one more wrangler call), and the triggers installed with one `wrangler d1 execute`.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rowSizeTriggerSql, TABLE_COLUMNS_QUERY, tablesOf } from "../src/platform/d1-row-size.ts";
import { projectRoot, wrangler } from "./wrangler.ts";

type Row = { tbl: string; col: string };

async function tableColumns(target: string[]): Promise<Row[]> {
  const sqlite = await import("node:sqlite").catch(() => null);
  if (!sqlite)
    return (
      JSON.parse(
        wrangler(["d1", "execute", "DB", ...target, "--json", "--command", TABLE_COLUMNS_QUERY], { quiet: true }),
      ) as { results: Row[] }[]
    )[0].results;
  const db = new sqlite.DatabaseSync(":memory:");
  const dir = join(projectRoot, "migrations");
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort())
    db.exec(readFileSync(join(dir, file), "utf8"));
  const rows = db.prepare(TABLE_COLUMNS_QUERY).all() as Row[];
  db.close();
  return rows;
}

/** Installs the triggers in the local database `target` names, after its migrations were applied. */
export async function enforceLocalRowSize(target: string[]): Promise<void> {
  const file = join(tmpdir(), `ffjobs-row-size-${process.pid}.sql`);
  writeFileSync(
    file,
    rowSizeTriggerSql(tablesOf(await tableColumns(target)))
      .map((sql) => `${sql};\n`)
      .join(""),
  );
  try {
    wrangler(["d1", "execute", "DB", ...target, "--file", file, "--yes"], { quiet: true });
  } finally {
    rmSync(file, { force: true });
  }
}
