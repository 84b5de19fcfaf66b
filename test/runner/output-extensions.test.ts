import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { MUXER_EXTENSIONS } from "../../src/jobs/policy/output-extensions.ts";
import { ALLOWED_FORMATS } from "../../src/jobs/policy/option-tables.ts";

/** The installed ffmpeg's "Common extensions" of a muxer. */
function extensionsOf(muxer: string): string[] {
  const help = execFileSync("ffmpeg", ["-hide_banner", "-h", `muxer=${muxer}`], { encoding: "utf8" });
  const line = /Common extensions: ([^\n]*)\./.exec(help);
  return line ? line[1].split(",") : [];
}

describe("the output-extension table, against the installed ffmpeg", () => {
  it.each(Object.keys(MUXER_EXTENSIONS))("%s: the table lists exactly the binary's extensions", (muxer) => {
    expect(MUXER_EXTENSIONS[muxer]).toEqual(extensionsOf(muxer));
  });

  it("lists only muxers the policy allows, and every allowed muxer that has extensions", () => {
    const allowed: readonly string[] = ALLOWED_FORMATS;
    for (const muxer of Object.keys(MUXER_EXTENSIONS)) expect(allowed, muxer).toContain(muxer);
    const withExtensions = allowed.filter((m) => extensionsOf(m).length > 0 && m !== "m4a");
    expect(Object.keys(MUXER_EXTENSIONS).sort()).toEqual([...new Set(withExtensions)].sort());
  });
});
