/**
 * Where a parsed JSON body has a key named `__proto__`, if anywhere. JSON.parse makes it an own key, but
 * any copy of the object (zod's records, spreads, Object.assign) sets the copy's prototype with it
 * instead, so the key would vanish without a word; it is refused before anything reads the body.
 * Iterative: a body nested thousands deep must not exhaust the stack.
 */
export function prototypeKeyPath(body: unknown): string[] | null {
  const pending: { value: unknown; path: string[] }[] = [{ value: body, path: [] }];
  while (pending.length) {
    const { value, path } = pending.pop()!;
    if (typeof value !== "object" || value === null) continue;
    for (const key of Object.keys(value)) {
      if (key === "__proto__") return [...path, key];
      pending.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return null;
}
