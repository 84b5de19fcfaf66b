import { describe, expect, it } from "vitest";
import { jobUidRange, mappedExtents, PREFERRED_UID_RANGE } from "../../container/src/uid-range.ts";

describe("the uid fallback's job ids, from the user namespace the runner runs in", () => {
  it("uses 200,000-259,999 where every id is mapped (a VM, a container without user namespaces)", () => {
    const all = "         0          0 4294967295\n";
    expect(jobUidRange(all, all)).toEqual(PREFERRED_UID_RANGE);
  });

  it("in a user-namespace-remapped or rootless container (ids 0-65535), uses the ids above the image's users, never nobody", () => {
    const remapped = "         0     100000      65536\n";
    expect(jobUidRange(remapped, remapped)).toEqual({ first: 10_000, size: 55_534 });
  });

  it("uses only ids mapped for uids and gids alike, and the largest stretch of them", () => {
    expect(jobUidRange("0 100000 65536\n", "0 100000 30000\n")).toEqual({ first: 10_000, size: 20_000 });
    expect(jobUidRange("0 0 1000\n300000 500000 70000\n", "0 0 4294967295\n")).toEqual({
      first: 300_000,
      size: 60_000,
    });
  });

  it("says none are available where too few ids are mapped (a single-id rootless map)", () => {
    expect(jobUidRange("0 1000 1\n", "0 1000 1\n")).toBeNull();
    expect(jobUidRange("", "")).toBeNull();
    expect(mappedExtents("garbage\n0 0 -5\n1 2 3\n")).toEqual([{ first: 1, end: 4 }]);
  });
});
