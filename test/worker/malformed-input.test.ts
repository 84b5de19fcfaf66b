import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount } from "./helpers.ts";

let key: string;
let jobId: string;
beforeAll(async () => {
  const account = await createAccount();
  key = account.key;
  jobId = (await api(key, "POST", "/v1/jobs", { ffmpegArgs: ["-version"] })).body.id;
});

const RUNS = 60;

async function storedRows(): Promise<number[]> {
  const tables = ["jobs", "assets", "webhook_deliveries", "webhook_secrets"];
  return Promise.all(
    tables.map(async (t) => (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${t}`).first<{ n: number }>())!.n),
  );
}

const oddText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 8 }),
  fc.constantFrom("\u0000", "{{", "}}", "{{in}}", "../../etc/passwd", "‮evil", "🎞️".repeat(50), "x".repeat(5000)),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  oddText,
  fc.integer(),
  fc.double(),
  fc.constantFrom(null, true, false, 1e308, -0, Number.MAX_SAFE_INTEGER + 2),
  fc.array(oddText, { maxLength: 300 }),
  fc.dictionary(oddText, oddText, { maxKeys: 5 }),
);
const brokenJson = fc.string({ maxLength: 60 }).filter((s) => {
  try {
    JSON.parse(s);
    return false;
  } catch {
    return true;
  }
});

/** Percent-encodes any string, lone surrogates included (encodeURIComponent throws on those). */
const percentEncode = (s: string) =>
  [...new TextEncoder().encode(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");

/** A valid body with one field made wrong, a required field dropped, or an unknown field added. */
function nearMiss(valid: Record<string, unknown>, required: string[]): fc.Arbitrary<unknown> {
  const fields = Object.keys(valid);
  return fc.oneof(
    fc
      .tuple(fc.constantFrom(...fields), anyValue)
      .filter(([, v]) => v !== undefined)
      .map(([f, v]) => ({ ...valid, [f]: v, x_unknown: 1 })),
    fc
      .tuple(fc.constantFrom(...fields), anyValue)
      .map(([f, v]) => ({ ...valid, [f]: typeof v === "string" ? v : [v] }))
      .filter((b) => JSON.stringify(b) !== JSON.stringify(valid)),
    fc.constantFrom(...required).map((f) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== f))),
    fc.tuple(oddText, anyValue).map(([k, v]) => ({ ...valid, [`x_${k}`]: v })),
    anyValue.filter((v) => typeof v !== "object" || v === null || Array.isArray(v)),
  );
}

async function expectClientError(method: string, path: string, body: unknown, raw = false) {
  const res = await api(
    key,
    method,
    path,
    raw ? (body as string) : body === undefined ? undefined : JSON.stringify(body),
  );
  expect(
    res.status,
    `${method} ${path} ${String(raw ? body : JSON.stringify(body)).slice(0, 200)}`,
  ).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
}

describe("malformed input never breaks the service", () => {
  const validJob = {
    binary: "ffmpeg",
    inputs: { in: { type: "url", url: "https://e.com/a.mp4" } },
    outputs: { out: { fileName: "o.mp4" } },
    ffmpegArgs: ["-i", "{{in}}", "{{out}}"],
  };
  const validFile = { fileName: "a.mp4", contentType: "video/mp4", size: 10 };

  it.each([
    ["POST", "/v1/jobs", validJob, ["inputs", "outputs", "ffmpegArgs"]],
    ["POST", "/v1/files", validFile, ["fileName"]],
    ["POST", "/v1/webhooks/test", { url: "https://example.com/hook" }, ["url"]],
  ] as const)("%s %s: generated bodies get a 4xx envelope and store nothing", async (method, path, valid, required) => {
    const before = await storedRows();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          nearMiss(valid, [...required]),
          brokenJson.map((s) => ({ raw: s })),
        ),
        async (body) => {
          const raw = typeof body === "object" && body !== null && "raw" in body;
          await expectClientError(method, path, raw ? (body as { raw: string }).raw : body, raw);
        },
      ),
      { numRuns: RUNS },
    );
    expect(await storedRows()).toEqual(before);
  });

  it("path ids and query strings: 4xx envelopes only", async () => {
    const before = await storedRows();
    const segment = fc.oneof(
      oddText.map(percentEncode),
      fc.uuid().map((u) => u.toUpperCase()),
      fc.constant("%"),
    );
    await fc.assert(
      fc.asyncProperty(
        segment,
        fc.constantFrom("GET /v1/jobs/", "GET /v1/files/", "POST /v1/jobs/", "POST /v1/webhooks/deliveries/"),
        async (id, route) => {
          const [method, prefix] = route.split(" ");
          const suffix =
            method === "POST" && prefix === "/v1/jobs/" ? "/cancel" : method === "POST" ? "/redeliver" : "";
          if (id.toLowerCase() === jobId) return;
          await expectClientError(method, `${prefix}${id}${suffix}`, undefined);
        },
      ),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/v1/jobs", "/v1/webhooks/deliveries"),
        fc.constantFrom("limit", "cursor", "status", "jobId", "x"),
        oddText,
        async (path, name, value) => {
          if (
            name === "cursor" ||
            (name === "limit" && /^\s*(\d+)\s*$/.test(value) && Number(value) >= 1 && Number(value) <= 100)
          )
            return;
          await expectClientError("GET", `${path}?${name}=${percentEncode(value)}&limit=0`, undefined);
        },
      ),
      { numRuns: RUNS },
    );
    expect(await storedRows()).toEqual(before);
  });
});
