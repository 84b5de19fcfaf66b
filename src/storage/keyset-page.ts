/**
 * Newest-first pages keyed on (created_at, id): rows created while a client pages never shift or
 * repeat a later page. The cursor is opaque to clients.
 */
export type Cursor = { createdAt: string; id: string };

export async function keysetPage<T extends { created_at: string; id: string }>(
  db: D1Database,
  q: {
    table: string;
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
    where.push(condition.sql.replace(/\?/g, () => {
      params.push(condition.params[next++]);
      return `?${params.length}`;
    }));
  }
  if (q.cursor) {
    params.push(q.cursor.createdAt, q.cursor.id);
    const c = params.length - 1;
    where.push(`(created_at < ?${c} OR (created_at = ?${c} AND id < ?${c + 1}))`);
  }
  params.push(q.limit + 1);
  const { results } = await db
    .prepare(`SELECT * FROM ${q.table} WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?${params.length}`)
    .bind(...params)
    .all<T>();
  const rows = results.slice(0, q.limit);
  const last = rows[rows.length - 1];
  return { rows, nextCursor: results.length > q.limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null };
}

export function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify([c.createdAt, c.id])).replace(/=+$/, "");
}

export function decodeCursor(cursor: string): Cursor | null {
  try {
    const [createdAt, id] = JSON.parse(atob(cursor)) as unknown[];
    if (typeof createdAt === "string" && typeof id === "string" && createdAt.length < 40 && id.length < 40) return { createdAt, id };
  } catch {
    // fall through: any undecodable cursor is a client error
  }
  return null;
}
