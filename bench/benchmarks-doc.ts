import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const DOC = join(resolve(import.meta.dirname, ".."), "docs/benchmarks.md");

/**
 * Replaces one measured section of docs/benchmarks.md (between its markers), leaving the others:
 * each benchmark owns its section and rewrites only that.
 */
export function writeBenchmarkSection(name: string, markdown: string, doc = DOC): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const text = existsSync(doc) ? readFileSync(doc, "utf8") : "# Benchmarks\n";
  const at = text.indexOf(start);
  const next =
    at >= 0
      ? text.slice(0, at) + block + text.slice(text.indexOf(end, at) + end.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(doc, next);
}

/** docs/capacity.md: estimates made from measured figures are written there, in sections of their own. */
export const CAPACITY_DOC = join(resolve(import.meta.dirname, ".."), "docs/capacity.md");

/** Nearest-rank percentile. */
export const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
export const median = (xs: number[]) => percentile(xs, 50);
