import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Comments a newcomer can trust. No comment cites an issue number (the tracker is not public, so "issue
 * 29" tells an outside reader nothing: say what happened instead), and no doc comment sits stacked on
 * another, where editors and generated docs show only the last and the first is silently orphaned.
 */
const root = join(import.meta.dirname, "../..");
const SOURCE = /\.(ts|mts|mjs|js|sql|toml|pl|sh)$/;

function trackedSources(): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  return listed
    .split("\n")
    .filter(
      (f) =>
        (SOURCE.test(f) || f === ".ci/run") && !f.includes("node_modules/") && !f.startsWith("test/unit/fixtures/"),
    );
}

/** A citation of the tracker: the word, an optional "#", a number. */
const ISSUE_CITATION = /\bissues? #?\d+/i;
const BLOCK_COMMENT = /\/\*[\s\S]*?\*\//g;

/** Where a doc comment (`/** ... *\/`) is followed, across nothing but blank space, by another. */
function stackedDocs(text: string): number[] {
  const comments = [...text.matchAll(BLOCK_COMMENT)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    doc: m[0].startsWith("/**") && m[0] !== "/**/",
  }));
  return comments.flatMap((c, i) => {
    const next = comments[i + 1];
    return c.doc && next?.doc && text.slice(c.end, next.start).trim() === "" ? [next.start] : [];
  });
}

const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;

describe("source comments", () => {
  const files = trackedSources().map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }));

  it("cite no issue numbers", () => {
    const cited = files.flatMap(({ file, text }) =>
      text
        .split("\n")
        .flatMap((line, i) =>
          ISSUE_CITATION.test(line) && !line.includes("ISSUE_CITATION") ? [`${file}:${i + 1}`] : [],
        ),
    );
    expect(cited).toEqual([]);
  });

  it("never stack one doc comment on another", () => {
    const stacked = files
      .filter(({ file }) => /\.(ts|mts|mjs|js)$/.test(file))
      .flatMap(({ file, text }) => stackedDocs(text).map((at) => `${file}:${lineOf(text, at)}`));
    expect(stacked).toEqual([]);
  });

  it("tell a stacked pair and a citation from what is allowed", () => {
    expect(stackedDocs("/** a */\n/** b */\nconst x = 1;")).toHaveLength(1);
    expect(stackedDocs("/** a */\n\n  /** b */")).toHaveLength(1);
    expect(stackedDocs("/* overview */\n\n/** b */")).toEqual([]);
    expect(stackedDocs("/** a */\nconst x = 1;\n/** b */")).toEqual([]);
    expect(ISSUE_CITATION.test("// found by an attack pass (issue 30)")).toBe(true);
    expect(ISSUE_CITATION.test("// reissue 3 requests")).toBe(false);
  });
});
