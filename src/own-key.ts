/**
 * A value of a constant table by a key the client chose (a file extension, an option's name, a preset's
 * name). `table[key]` would also find Object.prototype's members (`constructor`, `__proto__`, …): an
 * extension "constructor" typed a file as a function (found by an attack pass). Only the table's own keys count.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
