import { exports } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { arbitraryFor } from "../support/openapi-arbitrary.ts";
import { schemaProblems, type OpenApiDocument } from "../support/openapi-schema-check.ts";
import { api, createAccount } from "./helpers.ts";

/**
 * A property-based run over the served OpenAPI document (schemathesis' idea; schemathesis itself
 * cannot be installed here): for every operation, requests made from its parameters' and body's
 * schemas (mostly well-formed, sometimes anything), sent to the real Worker. Every answer must be
 * below 500, have a status the document lists for the operation, and a JSON body that fits the
 * schema documented for that status. Bounded: RUNS_PER_OPERATION requests per operation.
 */
const RUNS_PER_OPERATION = 20;
const SEED = Number(process.env.FFJOBS_FUZZ_SEED ?? Date.now() % 2 ** 31);
let doc: OpenApiDocument;
beforeAll(async () => {
  doc = (await api(null, "GET", "/openapi.json")).body;
});

type Param = {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Record<string, any>;
  style?: string;
};
type Request = {
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: unknown;
  withKey: boolean;
};

const printable = (v: unknown) => String(typeof v === "object" ? JSON.stringify(v) : v).replace(/[^\x20-\x7e]/g, "");

function requestArbitrary(path: string, operation: any): fc.Arbitrary<Request> {
  const params: Param[] = operation.parameters ?? [];
  const inPath = params
    .filter((p) => p.in === "path")
    .map((p) => fc.tuple(fc.constant(p.name), arbitraryFor(doc, p.schema)));
  const inQuery = params
    .filter((p) => p.in === "query")
    .map((p) => fc.option(fc.tuple(fc.constant(p), arbitraryFor(doc, p.schema)), { nil: undefined }));
  const inHeader = params
    .filter((p) => p.in === "header")
    .map((p) => fc.option(fc.tuple(fc.constant(p.name), arbitraryFor(doc, p.schema)), { nil: undefined }));
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  return fc
    .record({
      pathValues: fc.tuple(...inPath),
      queryValues: fc.tuple(...inQuery),
      headerValues: fc.tuple(...inHeader),
      body: bodySchema ? arbitraryFor(doc, bodySchema) : fc.constant(undefined),
      withKey: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    })
    .map(({ pathValues, queryValues, headerValues, body, withKey }) => ({
      path: pathValues.reduce((p, [name, v]) => p.replace(`{${name}}`, encodeURIComponent(printable(v)) || "x"), path),
      query: queryValues.flatMap((q) => {
        if (!q) return [];
        const [p, v] = q;
        if (p.style === "deepObject" && v && typeof v === "object")
          return Object.entries(v).map(([k, x]) => [`${p.name}[${k}]`, printable(x)] as [string, string]);
        return [[p.name, printable(v)] as [string, string]];
      }),
      headers: Object.fromEntries(headerValues.filter((h) => h !== undefined).map(([name, v]) => [name, printable(v)])),
      body,
      withKey,
    }));
}

describe("the API under requests made from its own OpenAPI document", () => {
  it("never answers 5xx, nor a status or body its document does not describe", async () => {
    const problems: string[] = [];
    let sent = 0;
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, o]) => ({ path, method, o })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(25);
    for (const { path, method, o } of operations) {
      const { key } = await createAccount(); // each operation its own account: its own rate budget
      await fc.assert(
        fc.asyncProperty(requestArbitrary(path, o), async (r) => {
          const url = new URL(`https://ffjobs.test${r.path}`);
          for (const [k, v] of r.query) url.searchParams.append(k, v);
          const headers: Record<string, string> = {
            ...r.headers,
            ...(r.withKey && o.security?.length !== 0 ? { Authorization: `Bearer ${key}` } : {}),
          };
          if (r.body !== undefined) headers["Content-Type"] = "application/json";
          const res = await exports.default.fetch(
            new Request(url, {
              method: method.toUpperCase(),
              headers,
              body: r.body === undefined ? undefined : JSON.stringify(r.body),
            }),
          );
          sent++;
          const text = await res.text();
          const where = `${method.toUpperCase()} ${url.pathname}${url.search} → ${res.status}`;
          if (res.status >= 500) return void problems.push(`${where}: ${text.slice(0, 200)}`);
          const documented = o.responses[String(res.status)];
          if (!documented)
            return void problems.push(`${where}: status not in the document (${Object.keys(o.responses).join(", ")})`);
          const schema = documented.content?.["application/json"]?.schema;
          if (schema && (res.headers.get("content-type") ?? "").includes("json")) {
            for (const p of schemaProblems(doc, schema, JSON.parse(text))) problems.push(`${where}: ${p}`);
          }
        }),
        { numRuns: RUNS_PER_OPERATION, seed: SEED },
      );
    }
    expect(sent).toBe(operations.length * RUNS_PER_OPERATION);
    expect([...new Set(problems)].slice(0, 30), `seed ${SEED} (FFJOBS_FUZZ_SEED replays it)`).toEqual([]);
  }, 300_000);
});
