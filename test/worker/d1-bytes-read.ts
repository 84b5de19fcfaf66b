/**
 * A D1 binding that counts the bytes its queries hand to the Worker: every row returned, measured as
 * the UTF-8 JSON D1 sends it in (the rows then sit whole in the isolate's memory). D1's own
 * `meta.rows_read` and `size_after` count rows scanned and the database's size, not these bytes.
 */
export type MeteredD1 = D1Database & { bytesRead: () => number };

const utf8Bytes = (value: unknown) =>
  value === undefined || value === null ? 0 : new TextEncoder().encode(JSON.stringify(value)).byteLength;

export function meteredD1(db: D1Database): MeteredD1 {
  let bytes = 0;
  const real = new WeakMap<object, D1PreparedStatement>();
  const counted = <T>(result: T): T => {
    const rows =
      result && typeof result === "object" && "results" in result ? (result as { results: unknown }).results : result;
    bytes += utf8Bytes(rows);
    return result;
  };
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const metered = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (prop === "first" || prop === "run" || prop === "all" || prop === "raw") {
          return async (...args: unknown[]) =>
            counted(await (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(metered, stmt);
    return metered;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "bytesRead") return () => bytes;
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
      if (prop === "batch") {
        return async (stmts: D1PreparedStatement[]) =>
          (await target.batch(stmts.map((s) => real.get(s) ?? s))).map(counted);
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as MeteredD1;
}
