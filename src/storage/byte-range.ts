/** What a `Range` request header asks of a representation of `size` bytes (RFC 9110 §14). */
export type RangeAnswer =
  | { kind: "whole" }
  | { kind: "partial"; offset: number; length: number }
  | { kind: "unsatisfiable" };

/**
 * One `bytes` range (`a-b`, `a-`, `-n`) is served as asked, clamped to the end; a header that does
 * not parse, names another unit, or lists several ranges is ignored (the whole representation, as
 * RFC 9110 §14.2 allows); a range that starts at or past the end, or a zero suffix, is
 * unsatisfiable (416 with `Content-Range: bytes * /size`).
 */
export function answerRange(header: string | undefined, size: number): RangeAnswer {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "whole" };
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return { kind: "unsatisfiable" };
    const length = Math.min(suffix, size);
    return size === 0 ? { kind: "unsatisfiable" } : { kind: "partial", offset: size - length, length };
  }
  const first = Number(m[1]);
  const last = m[2] === "" ? Infinity : Number(m[2]);
  if (last < first) return { kind: "whole" }; // invalid: ignored
  if (first >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", offset: first, length: Math.min(last, size - 1) - first + 1 };
}
