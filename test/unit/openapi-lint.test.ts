import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { serviceOpenApiDocument } from "../../client/scripts/service-openapi-document.ts";

const root = resolve(import.meta.dirname, "../..");

describe("the OpenAPI document", () => {
  it("passes `redocly lint` with the recommended rules: no errors, no warnings", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "ffjobs-openapi-")), "openapi.json");
    writeFileSync(file, JSON.stringify(await serviceOpenApiDocument("https://ffjobs.acme-media.workers.dev")));
    const lint = spawnSync(
      process.execPath,
      [
        join(root, "node_modules/@redocly/cli/bin/cli.js"),
        "lint",
        "--extends",
        "recommended",
        "--format",
        "json",
        file,
      ],
      {
        encoding: "utf8",
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf("{"))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(lint.status).toBe(0);
  }, 60_000);
});
