import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const { local } = useLocalStack();

describe("GET /docs in a real browser", () => {
  it("renders every operation of /openapi.json, with its named schemas", async () => {
    const doc = (await (await fetch(`${local.stack.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    // Headless Chromium runs the page's script (it fetches /openapi.json) and prints the DOM it built.
    // Not spawnSync: the page's own requests reach the stack while this waits.
    const browser = await promisify(execFile)(
      "chromium",
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--virtual-time-budget=10000",
        "--dump-dom",
        `${local.stack.baseUrl}/docs`,
      ],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const dom = browser.stdout;
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) expect(dom).toContain(`id="${op.operationId}"`);
    }
    expect(dom).toContain("<code>CreateJobRequest</code>");
    expect(dom).not.toContain("Loading");
  }, 90_000);

  it("serves /llms.txt and /llms-full.txt, made from docs/, as text", async () => {
    const index = await fetch(`${local.stack.baseUrl}/llms.txt`);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await index.text();
    expect(text).toMatch(/^# ffjobs\n\n> /);
    expect(text).toContain("/llms-full.txt#api.md");
    const full = await (await fetch(`${local.stack.baseUrl}/llms-full.txt`)).text();
    expect(full).toContain("# ffjobs API");
    expect(full).toContain("# Error codes");
  });
});
