import { z } from "zod";

/**
 * A zod schema as OpenAPI 3.0 JSON Schema (`input`: what a client sends; `output`: what it gets). The
 * document's one converter, zod's own: the named schemas (openapi-components.ts) and the parameters
 * (openapi-parameters.ts) are both rendered here, never by the route generator's converter, which reads
 * some schemas otherwise (a coerced number as nullable, a default as always present).
 */
export const jsonSchema = (s: z.ZodType, io: "input" | "output" = "output") => {
  const schema = z.toJSONSchema(s, { io, target: "openapi-3.0", unrepresentable: "any" }) as Record<string, unknown>;
  return io === "input" ? (defaultsInWords(schema) as Record<string, unknown>) : schema;
};

/**
 * What a client sends, without `default`s: generators read a default as "always there"
 * (openapi-typescript's defaultNonNullable, on by default, made `binary` required in a job request)
 * and would make clients send what the API fills in itself. The default stays, in the description.
 */
function defaultsInWords(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(defaultsInWords);
  if (!s || typeof s !== "object") return s;
  const { default: value, ...rest } = s as Record<string, unknown>;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(rest).map(([k, v]) => [
      k,
      k === "example" || k === "enum" ? v : k === "properties" ? propertiesInWords(v) : defaultsInWords(v),
    ]),
  );
  if (value !== undefined)
    out.description = `${out.description ? `${out.description} ` : ""}(default ${JSON.stringify(value)})`;
  return out;
}

/** A schema's `properties`: a map of names to schemas, where a property may be named `default` or `description`. */
function propertiesInWords(properties: unknown): unknown {
  if (!properties || typeof properties !== "object") return properties;
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, defaultsInWords(schema)]));
}
