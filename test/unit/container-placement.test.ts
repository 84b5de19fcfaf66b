import { describe, expect, it } from "vitest";
import { parsePlacement } from "../../src/runner/container-placement.ts";

describe("container placement", () => {
  it("is a warm pool of 20 by default, capped by pool:N, or a container per job", () => {
    expect(parsePlacement("pool")).toEqual({ kind: "pool", maxInstances: 20 });
    expect(parsePlacement("pool:3")).toEqual({ kind: "pool", maxInstances: 3 });
    expect(parsePlacement("per-job")).toEqual({ kind: "per-job" });
  });

  it("refuses anything else", () => {
    for (const bad of ["", "pool:", "pool:0", "pool:-1", "pool:10000", "shared"])
      expect(parsePlacement(bad)).toBeNull();
  });
});
