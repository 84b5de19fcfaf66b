import { describe, expect, it } from "vitest";
import { parseFilterGraph } from "../../src/jobs/policy/filter-graph.ts";

describe("filter graph parsing", () => {
  it("sees every filter, its positional and keyed options, through labels, quotes and escapes", () => {
    const parsed = parseFilterGraph(
      "[0:v]scale=640:-2,drawtext=text='a\\:b, c':fontsize=20[v];[1:a]amovie=/etc/passwd[a]",
    );
    expect(parsed).toEqual([
      { name: "scale", positional: ["640", "-2"], options: {} },
      { name: "drawtext", positional: [], options: { text: "a:b, c", fontsize: "20" } },
      { name: "amovie", positional: ["/etc/passwd"], options: {} },
    ]);
  });
});
