import type { z } from "zod";
import { jsonSchema } from "./openapi-json-schema.ts";

/** An OpenAPI parameter, as a route's declaration lists it. */
export type Parameter = {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  description?: string;
  style?: "deepObject";
  explode?: boolean;
  schema: Record<string, unknown>;
};

/**
 * How a path or query field is documented where its check alone would not say it, given with zod's own
 * metadata on the field: `.meta({ param: { … } })`. `schema` replaces the field's rendered schema (a
 * `probe` checked as the strings "true", "1", … is documented as the boolean clients send);
 * `description` is the parameter's own.
 */
type ParameterDoc = { schema?: Parameter["schema"]; description?: string };

/**
 * A zod object's fields as OpenAPI parameters, in its order: path parameters are required, query
 * parameters optional. Each schema is rendered by zod's own converter as the named schemas are
 * (openapi-json-schema.ts), but only when the document is built: the first rendering costs about 80 ms
 * of CPU, which every cold start would pay for a document few requests read, so `schema` is a getter.
 */
export function parametersOf(object: z.ZodObject, location: "path" | "query"): Parameter[] {
  let rendered: Record<string, Record<string, unknown>> | undefined;
  const properties = () =>
    (rendered ??= (jsonSchema(object, "input").properties ?? {}) as Record<string, Record<string, unknown>>);
  return Object.entries(object.shape).map(([name, field]) => {
    const doc = ((field as z.ZodType).meta()?.param ?? {}) as ParameterDoc;
    return {
      name,
      in: location,
      ...(location === "path" ? { required: true } : {}),
      ...(doc.description ? { description: doc.description } : {}),
      get schema(): Parameter["schema"] {
        if (doc.schema) return doc.schema;
        // zod's converter writes a field's metadata into its schema: `param` is the parameter's, not the schema's.
        const { param: _, ...schema } = properties()[name];
        return schema;
      },
    };
  });
}
