/** A query string from a tool's scalar arguments (the API validates them); "" when there are none. */
export function queryOf(args: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}
