/**
 * Newest-first pages keyed on (created_at, id): rows created while a client pages never shift or
 * repeat a later page. The cursor is opaque to clients.
 *
 * A page reads the columns its caller names and no others (never `*`): up to 101 rows come back at
 * once, and a table with large columns (a job's request and stdout, a webhook's payload) would put
 * over 100 MB in an isolate that has 128 MB.
 */
export type Cursor = { createdAt: string; id: string };

/** A column name or an alias: what may stand unquoted in the select list. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

export async function keysetPage<T extends { created_at: string; id: string }>(
  db: D1Database,
  q: {
    table: string;
    /** The table's columns to read, by name (an allowlist); `id` and `created_at` among them (the cursor). */
    columns: readonly (keyof T & string)[];
    /** Further fields computed in SQL, by their name in the row: bounded extracts of large columns. */
    computed?: { readonly [K in keyof T & string]?: string };
    filters: [column: string, value: unknown][];
    /** Further conditions with `?` for their params (numbered here), e.g. a JSON field's value. */
    conditions?: { sql: string; params: unknown[] }[];
    limit: number;
    cursor?: Cursor;
  },
): Promise<{ rows: T[]; nextCursor: string | null }> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of q.filters) {
    params.push(value);
    where.push(`${column} = ?${params.length}`);
  }
  for (const condition of q.conditions ?? []) {
    let next = 0;
    where.push(
      condition.sql.replace(/\?/g, () => {
        params.push(condition.params[next++]);
        return `?${params.length}`;
      }),
    );
  }
  if (q.cursor) {
    params.push(q.cursor.createdAt, q.cursor.id);
    const c = params.length - 1;
    where.push(`(created_at < ?${c} OR (created_at = ?${c} AND id < ?${c + 1}))`);
  }
  params.push(q.limit + 1);
  const { results } = await db
    .prepare(
      `SELECT ${selectList(q.columns, q.computed ?? {})} FROM ${q.table} WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?${params.length}`,
    )
    .bind(...params)
    .all<T>();
  const rows = results.slice(0, q.limit);
  const last = rows[rows.length - 1];
  return {
    rows,
    nextCursor: results.length > q.limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}

function selectList(columns: readonly string[], computed: Readonly<Record<string, string | undefined>>): string {
  const names = [...columns, ...Object.keys(computed)];
  const bad = names.find((n) => !IDENTIFIER.test(n));
  if (bad !== undefined) throw new Error(`keysetPage: ${JSON.stringify(bad)} is not a column name`);
  if (!columns.includes("id") || !columns.includes("created_at"))
    throw new Error("keysetPage: the columns must include id and created_at (the cursor)");
  return [...columns, ...Object.entries(computed).map(([name, sql]) => `(${sql}) AS ${name}`)].join(", ");
}

export function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify([c.createdAt, c.id])).replace(/=+$/, "");
}

export function decodeCursor(cursor: string): Cursor | null {
  try {
    const [createdAt, id] = JSON.parse(atob(cursor)) as unknown[];
    if (typeof createdAt === "string" && typeof id === "string" && createdAt.length < 40 && id.length < 40)
      return { createdAt, id };
  } catch {
    // fall through: any undecodable cursor is a client error
  }
  return null;
}
