import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

/**
 * A client nobody here wrote: openapi-typescript (a maintained generator) turns the served
 * /openapi.json into types, a user's program uses them with openapi-fetch, `tsc --strict` checks
 * the program, and it runs against the local stack. Generators and their TypeScript live in their own
 * package (test/external-clients), as in a user's project.
 */
const { fx, local } = useLocalStack();
const clients = resolve(import.meta.dirname, "../external-clients");
const work = join(clients, "generated", crypto.randomUUID());
const run = promisify(execFile);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a client generated from the served OpenAPI document", () => {
  it("type-checks under strict tsc and gets from the API what the document promised", async () => {
    mkdirSync(work, { recursive: true });
    const doc = await (await fetch(`${local.stack.baseUrl}/openapi.json`)).text();
    writeFileSync(join(work, "openapi.json"), doc);
    await run(process.execPath, [
      join(clients, "node_modules/openapi-typescript/bin/cli.js"),
      join(work, "openapi.json"),
      "-o",
      join(work, "schema.d.ts"),
    ]);
    copyFileSync(join(clients, "program/use-the-api.ts"), join(work, "use-the-api.ts"));
    const tsc = await run(process.execPath, [
      join(clients, "node_modules/typescript/bin/tsc"),
      "--strict",
      "--noEmit",
      "--target",
      "es2022",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--lib",
      "es2022,dom",
      "--allowImportingTsExtensions",
      "--types",
      "node",
      "--typeRoots",
      join(clients, "../../node_modules/@types"),
      join(work, "use-the-api.ts"),
    ]).catch((err) => err);
    expect(`${tsc.stdout ?? ""}${tsc.stderr ?? ""}`).toBe("");

    const { stdout } = await run(process.execPath, [
      join(work, "use-the-api.ts"),
      local.stack.baseUrl,
      local.stack.apiKey,
      `${local.media.url}/${fx.clip.split("/").pop()}`,
    ]);
    const got = JSON.parse(stdout);
    // One comparison of everything the program saw, so a failure shows all of it (a job's error too).
    expect(got, stdout).toMatchObject({
      created: { status: 200, jobStatus: "completed" },
      job: { status: "completed", runtimeSeconds: expect.any(Number), metadata: { client: "openapi-fetch" } },
      listedIds: expect.arrayContaining([expect.any(String)]),
      resultExitCode: 0,
      conflict: { httpStatus: 409, code: "JOB_ALREADY_FINISHED", status: "completed" },
      dryRun: { valid: true, probed: ["clip"] },
      malformed: { httpStatus: 400, path: ["path", "id"] },
    });
  }, 120_000);
});
