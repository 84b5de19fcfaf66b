import { PROTOTYPE_NAME_MESSAGE } from "../jobs/request/placeholders.ts";

/**
 * Deeper than this a JSON body is refused: the deepest body the API takes nests 6 levels (an output's
 * destination's part URLs), and a 1 MiB body could nest 500,000, which every walk over it pays for.
 */
export const MAX_BODY_DEPTH = 32;

export type BodyShapeProblem = { path: string[]; message: string };

/**
 * What is wrong with a parsed JSON body's shape before any schema reads it, if anything: a key named
 * `__proto__` (JSON.parse makes it an own key, but any copy of the object — zod's records, spreads —
 * sets the copy's prototype with it instead, so it would vanish without a word), or nesting past
 * MAX_BODY_DEPTH. Iterative, each node linked to its parent: linear in the body, whatever its depth.
 */
export function bodyShapeProblem(body: unknown): BodyShapeProblem | null {
  type Node = { value: unknown; key: string; depth: number; parent: Node | null };
  const pending: Node[] = [{ value: body, key: "", depth: 0, parent: null }];
  while (pending.length) {
    const node = pending.pop()!;
    if (typeof node.value !== "object" || node.value === null) continue;
    if (node.depth >= MAX_BODY_DEPTH)
      return { path: pathOf(node), message: `nested more than ${MAX_BODY_DEPTH} levels deep` };
    for (const key of Object.keys(node.value)) {
      const child: Node = {
        value: (node.value as Record<string, unknown>)[key],
        key,
        depth: node.depth + 1,
        parent: node,
      };
      if (key === "__proto__") return { path: pathOf(child), message: PROTOTYPE_NAME_MESSAGE };
      pending.push(child);
    }
  }
  return null;
}

function pathOf(node: { key: string; parent: unknown }): string[] {
  const path: string[] = [];
  for (let n = node as { key: string; parent: unknown } | null; n?.parent; n = n.parent as typeof n) path.push(n.key);
  return path.reverse();
}
