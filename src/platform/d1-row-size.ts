/**
 * D1 takes rows of at most 2,000,000 bytes: D1 limits (developers.cloudflare.com/d1/platform/limits/),
 * "Maximum string, BLOB or table row size: 2,000,000 bytes (2 MB)". That is SQLite's
 * SQLITE_MAX_LENGTH, which bounds a row too (sqlite.org/limits.html: "the complete content of each
 * row in the database is encoded as a single BLOB. So the SQLITE_MAX_LENGTH parameter also
 * determines the maximum number of bytes in a row"): SQLite refuses to build a record larger than it
 * (vdbe.c, OP_MakeRecord) with SQLITE_TOOBIG, which D1 reports as
 * "D1_ERROR: string or blob too big: SQLITE_TOOBIG". The local database (workerd's SQLite) takes rows
 * several times that size, so the local stack and the tests add triggers that refuse, before each
 * INSERT and UPDATE of every table, a row whose record would be larger than D1 takes: a write that
 * would fail in production fails locally too.
 */
export const D1_MAX_ROW_BYTES = 2_000_000;

/** The local refusal's words, which the counted binding turns into D1's (src/storage/d1-query-budget.ts). */
export const ROW_TOO_BIG = "string or blob too big";
export const D1_ROW_TOO_BIG_ERROR = `D1_ERROR: ${ROW_TOO_BIG}: SQLITE_TOOBIG`;

const TRIGGER_PREFIX = "d1_row_size_";

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * An upper bound of one column's part of the record SQLite builds for a row
 * (sqlite.org/fileformat2.html, "Record Format"): its serial type in the header (a varint of 1 to 4
 * bytes for a value this size, counted as 4) and its value in the body: a string or BLOB its bytes
 * (UTF-8), an integer 0 to 8 bytes by its size (counted as 8), a float 8, NULL none. Never less than
 * SQLite's record, at most 7 bytes a column more (one expression, not SQLite's exact arithmetic: a
 * trigger is one statement, and D1 takes statements of at most 100 KB, the local one too).
 */
function columnBytes(column: string): string {
  const v = `NEW.${quoted(column)}`;
  return `(CASE typeof(${v}) WHEN 'text' THEN length(CAST(${v} AS BLOB)) + 4 WHEN 'blob' THEN length(${v}) + 4 WHEN 'null' THEN 1 ELSE 9 END)`;
}

/** At least the size of the record SQLite would build for NEW of a table with these columns (its header's own size: 2 bytes). */
export function recordBytesOfNew(columns: string[]): string {
  return `(2 + ${columns.map(columnBytes).join(" + ")})`;
}

export type TableColumns = { table: string; columns: string[] };

/** The triggers for each table (before INSERT and before UPDATE), replacing those an older schema left. */
export function rowSizeTriggerSql(tables: TableColumns[]): string[] {
  return tables.flatMap(({ table, columns }) =>
    (["INSERT", "UPDATE"] as const).flatMap((event) => {
      const name = quoted(`${TRIGGER_PREFIX}${table}_${event.toLowerCase()}`);
      return [
        `DROP TRIGGER IF EXISTS ${name}`,
        `CREATE TRIGGER ${name} BEFORE ${event} ON ${quoted(table)} WHEN ${recordBytesOfNew(columns)} > ${D1_MAX_ROW_BYTES} BEGIN SELECT RAISE(ABORT, '${ROW_TOO_BIG}'); END`,
      ];
    }),
  );
}

/** Every table's columns, in order (D1's own `_cf_` tables and SQLite's left out). */
export const TABLE_COLUMNS_QUERY = `SELECT m.name AS tbl, p.name AS col FROM sqlite_master m JOIN pragma_table_info(m.name) p
  WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '_cf_%' ORDER BY m.name, p.cid`;

export function tablesOf(rows: { tbl: string; col: string }[]): TableColumns[] {
  const tables = new Map<string, string[]>();
  for (const r of rows) tables.set(r.tbl, [...(tables.get(r.tbl) ?? []), r.col]);
  return [...tables].map(([table, columns]) => ({ table, columns }));
}

/** Installs the row-size triggers in a local D1 database (the tests' setup; npm run dev: scripts/d1-local-row-size.ts). */
export async function enforceD1RowSize(db: D1Database): Promise<void> {
  const { results } = await db.prepare(TABLE_COLUMNS_QUERY).all<{ tbl: string; col: string }>();
  await db.batch(rowSizeTriggerSql(tablesOf(results)).map((sql) => db.prepare(sql)));
}
