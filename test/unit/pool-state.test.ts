import { describe, expect, it } from "vitest";
import { acquire, instanceOf, reclaimable, release, type PoolState } from "../../src/runner/pool-state.ts";

describe("taking instances back", () => {
  it("takes back ended jobs' instances, never a running job's, and a probe's only after its lease", () => {
    const state: PoolState = { entries: [] };
    for (const id of ["done", "running", "probe-new", "probe-old"])
      acquire(state, id, id === "probe-old" ? 0 : 900_000, 10, () => `pool-${id}`);
    const statuses = new Map([
      ["done", "completed"],
      ["running", "running"],
    ]);
    expect(reclaimable(state, statuses, 1_000_000, 300_000).sort()).toEqual(["done", "probe-old"]);
  });
});

describe("the warm pool's bookkeeping", () => {
  let n = 0;
  const fresh = () => `c${++n}`;

  it("gives a job the instance idle the shortest time, one job per instance, new ones only under the cap", () => {
    const state: PoolState = { entries: [] };
    expect(acquire(state, "a", 0, 2, fresh)).toBe("c1");
    expect(acquire(state, "b", 0, 2, fresh)).toBe("c2");
    expect(acquire(state, "c", 0, 2, fresh)).toBeNull();
    expect(acquire(state, "a", 0, 2, fresh)).toBe("c1");
    release(state, "b", 100);
    release(state, "a", 200);
    expect(instanceOf(state, "a")).toBeNull();
    expect(acquire(state, "c", 300, 2, fresh)).toBe("c1");
    expect(acquire(state, "d", 300, 2, fresh)).toBe("c2");
    expect(instanceOf(state, "d")).toBe("c2");
    expect(state.entries).toHaveLength(2);
  });
});
