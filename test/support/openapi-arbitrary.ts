import fc from "fast-check";
import { resolveRef, type OpenApiDocument } from "./openapi-schema-check.ts";

/**
 * fast-check values for a schema of the OpenAPI document: mostly what the schema describes (so a
 * request gets past the first check and reaches the rules behind it), sometimes anything at all.
 * Every URL it makes points at a closed loopback port: a fuzzed request never sends traffic anywhere.
 */
type Schema = Record<string, any>;

/** Loopback, port 9 (discard: nothing listens), and the shapes a URL check has to tell apart. */
const LOOPBACK_URLS = [
  "http://127.0.0.1:9/a.mp4",
  "https://127.0.0.1:9/b.mov?x=1",
  "HTTP://127.0.0.1:9/c",
  "http://user:pw@127.0.0.1:9/d",
  "http://127.0.0.1:9/%2e%2e/e",
];

const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(null, true, false, "", "{{", "../../etc/passwd", "\u0000", "x".repeat(3000)),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

export function arbitraryFor(doc: OpenApiDocument, schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveRef(doc, schema);
  const described = describedBy(doc, s, depth);
  // The document's own example (its URLs moved to loopback) gets a request past the rules random values fail.
  const example = s.example === undefined ? [] : [{ weight: 4, arbitrary: fc.constant(onLoopback(s.example)) }];
  return fc.oneof({ weight: 9, arbitrary: described }, ...example, { weight: 1, arbitrary: junk });
}

function onLoopback(value: unknown): unknown {
  if (typeof value === "string") return /^https?:\/\//i.test(value) ? LOOPBACK_URLS[0] : value;
  if (Array.isArray(value)) return value.map(onLoopback);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, onLoopback(v)]));
  return value;
}

function describedBy(doc: OpenApiDocument, s: Schema, depth: number): fc.Arbitrary<unknown> {
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives && !s.properties)
    return fc.oneof(...alternatives.map((a: Schema) => arbitraryFor(doc, a, depth + 1)));
  if (s.enum) return fc.constantFrom(...s.enum);
  const type = s.type ?? (s.properties || s.additionalProperties ? "object" : undefined);
  const orNull = (a: fc.Arbitrary<unknown>) => (s.nullable ? fc.option(a, { nil: null }) : a);
  switch (type) {
    case "object": {
      if (depth > 4) return fc.constant({});
      const required = new Set<string>(s.required ?? []);
      const props = Object.fromEntries(
        Object.entries(s.properties ?? {}).map(([k, v]) => [k, arbitraryFor(doc, v as Schema, depth + 1)]),
      );
      const fixed = fc.record(props, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
      if (typeof s.additionalProperties !== "object") return orNull(fixed);
      const extra = fc.dictionary(
        fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/),
        arbitraryFor(doc, s.additionalProperties, depth + 1),
        { maxKeys: 3 },
      );
      return orNull(fc.tuple(fixed, extra).map(([a, b]) => ({ ...b, ...(a as object) })));
    }
    case "array":
      return orNull(
        fc.array(arbitraryFor(doc, s.items ?? {}, depth + 1), {
          minLength: s.minItems ?? 0,
          maxLength: Math.min(s.maxItems ?? 4, 4),
        }),
      );
    case "string":
      return orNull(stringFor(s));
    case "integer":
      return orNull(fc.integer({ min: s.minimum ?? -10, max: s.maximum ?? 10_000 }));
    case "number":
      return orNull(fc.double({ min: s.minimum ?? -10, max: s.maximum ?? 10_000, noNaN: true }));
    case "boolean":
      return orNull(fc.boolean());
    default:
      return junk;
  }
}

function stringFor(s: Schema): fc.Arbitrary<string> {
  if (s.format === "uuid" || String(s.pattern ?? "").startsWith("^[0-9a-fA-F]{8}")) return fc.uuid();
  if (String(s.pattern ?? "").includes("[Hh][Tt][Tt][Pp]") || s.format === "uri")
    return fc.constantFrom(...LOOPBACK_URLS);
  if (s.pattern) {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? 200));
    } catch {
      // a pattern fast-check cannot generate from: plain strings, which the API should refuse cleanly
    }
  }
  return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 24, 24) });
}
