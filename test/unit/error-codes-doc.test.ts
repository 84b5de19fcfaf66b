import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { API_ERRORS, JOB_ERRORS } from "../../src/api/error-codes.ts";

const doc = readFileSync(join(import.meta.dirname, "../../docs/errors.md"), "utf8");

function tableRows(heading: string): string[][] {
  const section = doc.split(/^## /m).find((s) => s.startsWith(heading));
  if (!section) throw new Error(`docs/errors.md has no "## ${heading}" section`);
  return section
    .split("\n")
    .filter((l) => /^\| `[A-Z_]+` \|/.test(l))
    .map((l) =>
      l
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim().replace(/`/g, "")),
    );
}

describe("docs/errors.md and the error-code registry", () => {
  it("list the same API errors with the same HTTP statuses", () => {
    const documented = Object.fromEntries(tableRows("API errors").map(([code, status]) => [code, Number(status)]));
    const registered = Object.fromEntries(Object.entries(API_ERRORS).map(([code, e]) => [code, e.status]));
    expect(documented).toEqual(registered);
  });

  it("list the same job errorCodes", () => {
    expect(
      tableRows("Job errorCodes")
        .map(([code]) => code)
        .sort(),
    ).toEqual(Object.keys(JOB_ERRORS).sort());
  });
});
