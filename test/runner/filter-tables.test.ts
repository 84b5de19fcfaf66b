import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  ALLOWED_FILTERS,
  FILE_OPTIONS,
  NOT_FILE_OPTIONS,
  SOURCE_DURATION_OPTIONS,
} from "../../src/jobs/policy/filter-tables.ts";

/**
 * The filter allowlist against the installed ffmpeg (the same build the runner image gets): an
 * ffmpeg upgrade that adds a filter option naming a file, or turns an allowed filter into a source,
 * fails here instead of opening a hole.
 */
const installed = new Set(
  execFileSync("ffmpeg", ["-hide_banner", "-filters"], { encoding: "utf8" })
    .split("\n")
    .map((l) => /^ [.A-Z|]{3} (\S+)\s/.exec(l)?.[1])
    .filter((n): n is string => Boolean(n)),
);

const described = new Map<string, ReturnType<typeof describeFilter>>();
const optionsOf = (name: string) => described.get(name) ?? described.set(name, describeFilter(name)).get(name)!;

/** A filter's options as `ffmpeg -h filter=NAME` lists them. */
function describeFilter(name: string) {
  const help = execFileSync("ffmpeg", ["-hide_banner", "-h", `filter=${name}`], { encoding: "utf8" });
  const options = [...help.matchAll(/^ {2,4}([a-z_0-9]+) +<(\w+)> +\S+ *(.*)$/gm)].map((m) => ({
    name: m[1],
    type: m[2],
    description: m[3],
  }));
  return { options, isSource: /\(source filter\)/.test(help) };
}

/** What could name a file, judged by the name and description ffmpeg gives an option. */
const LOOKS_LIKE_A_FILE = /file|path|dir|url|model|font|script|shader|weights|load|save|dump|log/i;

describe("the filter allowlist, against the installed ffmpeg", () => {
  it("lists only filters this ffmpeg has", () => {
    expect(installed.size).toBeGreaterThan(300);
    expect(ALLOWED_FILTERS.filter((f) => !installed.has(f))).toEqual([]);
  });

  it("covers every option of an allowed filter that could name a file, and lists none that do not exist", () => {
    const unclassified: string[] = [];
    const stale: string[] = [];
    for (const filter of ALLOWED_FILTERS) {
      const { options } = optionsOf(filter);
      const rule = FILE_OPTIONS[filter] ?? {};
      const classified = new Set([
        ...(rule.placeholderOnly ?? []),
        ...(rule.refused ?? []),
        ...(NOT_FILE_OPTIONS[filter] ?? []),
      ]);
      for (const o of options) {
        if (
          ["string", "dictionary"].includes(o.type) &&
          LOOKS_LIKE_A_FILE.test(`${o.name} ${o.description}`) &&
          !classified.has(o.name)
        ) {
          unclassified.push(`${filter}.${o.name} (${o.description})`);
        }
      }
      const names = new Set(options.map((o) => o.name));
      for (const o of classified) if (!names.has(o)) stale.push(`${filter}.${o}`);
    }
    expect(unclassified).toEqual([]);
    expect(stale).toEqual([]);
  });

  it("bounds every allowed source filter by a duration option it really has", () => {
    for (const filter of ALLOWED_FILTERS) {
      const { options, isSource } = optionsOf(filter);
      expect(Boolean(SOURCE_DURATION_OPTIONS[filter]), `${filter} is${isSource ? "" : " not"} a source`).toBe(isSource);
      for (const key of SOURCE_DURATION_OPTIONS[filter] ?? []) {
        expect(options.find((o) => o.name === key)?.type, `${filter}.${key}`).toBe("duration");
      }
    }
  });
});
