/**
 * Checks a value against a schema of an OpenAPI 3.0 document, as a client generated from it would
 * expect the value to be: `$ref`, `nullable`, `type`, `properties`/`required`/`additionalProperties`,
 * `items`, `enum`, `oneOf`/`anyOf`/`allOf`, `pattern`, lengths and bounds. Returns the problems found,
 * each with where (`$.outputs.0.metadata`), so a response that breaks its documented schema says how.
 */
type Schema = Record<string, any>;
export type OpenApiDocument = {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, any>>;
};

export function resolveRef(doc: OpenApiDocument, schema: Schema): Schema {
  let s = schema;
  for (let hops = 0; s.$ref; hops++) {
    if (hops > 20) throw new Error(`$ref loop at ${schema.$ref}`);
    s = doc.components.schemas[String(s.$ref).replace("#/components/schemas/", "")];
    if (!s) throw new Error(`unknown $ref ${schema.$ref}`);
  }
  return s;
}

export function schemaProblems(doc: OpenApiDocument, schema: Schema, value: unknown, at = "$"): string[] {
  const s = resolveRef(doc, schema);
  if (value === null)
    return s.nullable || s.enum?.includes(null) ? [] : [`${at}: null, but the schema does not allow null`];
  const problems: string[] = [];
  if (s.allOf) for (const part of s.allOf) problems.push(...schemaProblems(doc, part, value, at));
  if (s.anyOf && !s.anyOf.some((alt: Schema) => schemaProblems(doc, alt, value, at).length === 0))
    problems.push(`${at}: matches none of anyOf`);
  if (s.oneOf) {
    const matching = s.oneOf.filter((alt: Schema) => schemaProblems(doc, alt, value, at).length === 0).length;
    if (matching !== 1) problems.push(`${at}: matches ${matching} of oneOf, not exactly one`);
  }
  if (s.enum && !s.enum.some((v: unknown) => v === value))
    problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
  const type = s.type ?? (s.properties || s.additionalProperties !== undefined ? "object" : undefined);
  switch (type) {
    case "object":
      return [...problems, ...objectProblems(doc, s, value, at)];
    case "array": {
      if (!Array.isArray(value)) return [...problems, `${at}: not an array`];
      if (s.minItems !== undefined && value.length < s.minItems) problems.push(`${at}: fewer than ${s.minItems} items`);
      if (s.maxItems !== undefined && value.length > s.maxItems) problems.push(`${at}: more than ${s.maxItems} items`);
      return [...problems, ...value.flatMap((v, i) => (s.items ? schemaProblems(doc, s.items, v, `${at}.${i}`) : []))];
    }
    case "string":
      if (typeof value !== "string") return [...problems, `${at}: not a string`];
      if (s.pattern && !new RegExp(s.pattern).test(value)) problems.push(`${at}: does not match ${s.pattern}`);
      if (s.minLength !== undefined && value.length < s.minLength) problems.push(`${at}: shorter than ${s.minLength}`);
      if (s.maxLength !== undefined && value.length > s.maxLength) problems.push(`${at}: longer than ${s.maxLength}`);
      return problems;
    case "integer":
    case "number":
      if (typeof value !== "number" || (type === "integer" && !Number.isInteger(value)))
        return [...problems, `${at}: not ${type === "integer" ? "an integer" : "a number"}`];
      if (s.minimum !== undefined && value < s.minimum) problems.push(`${at}: below ${s.minimum}`);
      if (s.maximum !== undefined && value > s.maximum) problems.push(`${at}: above ${s.maximum}`);
      return problems;
    case "boolean":
      return typeof value === "boolean" ? problems : [...problems, `${at}: not a boolean`];
    default:
      return problems;
  }
}

function objectProblems(doc: OpenApiDocument, s: Schema, value: unknown, at: string): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${at}: not an object`];
  const record = value as Record<string, unknown>;
  const properties: Record<string, Schema> = s.properties ?? {};
  const problems = (s.required ?? [])
    .filter((k: string) => !(k in record))
    .map((k: string) => `${at}: lacks required ${k}`);
  for (const [k, v] of Object.entries(record)) {
    if (properties[k]) problems.push(...schemaProblems(doc, properties[k], v, `${at}.${k}`));
    else if (s.additionalProperties === false) problems.push(`${at}: has ${k}, which the schema does not allow`);
    else if (typeof s.additionalProperties === "object")
      problems.push(...schemaProblems(doc, s.additionalProperties, v, `${at}.${k}`));
  }
  return problems;
}
