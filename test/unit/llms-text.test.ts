import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { LLMS_DIR, LLMS_DOCS, llmsTexts } from "../../scripts/llms-text.ts";

const root = resolve(import.meta.dirname, "../..");

describe("/llms.txt and /llms-full.txt", () => {
  it("are what docs/ makes now (node scripts/llms-text.ts writes them)", () => {
    const { index, full } = llmsTexts(root);
    expect(readFileSync(join(root, LLMS_DIR, "llms.txt"), "utf8")).toBe(index);
    expect(readFileSync(join(root, LLMS_DIR, "llms-full.txt"), "utf8")).toBe(full);
  });

  it("follow llmstxt.org's shape and name every doc the full text holds", () => {
    const { index, full } = llmsTexts(root);
    expect(index).toMatch(/^# ffjobs\n\n> .+\n/);
    expect(index).toMatch(/\n## Docs\n\n(- \[.+\]\(.+\): .+\n)+/);
    for (const [file] of LLMS_DOCS) {
      expect(index).toContain(`#${file})`);
      expect(full).toContain(readFileSync(join(root, "docs", file), "utf8").trimEnd());
    }
  });

  it("publishes no file a symbolic link in docs/ points at", () => {
    const copy = mkdtempSync(join(tmpdir(), "ffjobs-llms-"));
    try {
      cpSync(join(root, "docs"), join(copy, "docs"), { recursive: true });
      writeFileSync(join(copy, "secret.txt"), "not for publishing");
      unlinkSync(join(copy, "docs", "benchmarks.md"));
      symlinkSync(join(copy, "secret.txt"), join(copy, "docs", "benchmarks.md"));
      expect(() => llmsTexts(copy)).toThrow(/not a plain file/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
