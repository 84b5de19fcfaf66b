import { readFileSync } from "node:fs";

/** Ids the uid fallback hands to jobs, one per running job: `first` up to `first + size - 1`. */
export type UidRange = { first: number; size: number };

/** Where a host maps every id (a plain VM or container): far above any user an image defines. */
export const PREFERRED_UID_RANGE: UidRange = { first: 200_000, size: 60_000 };
/** Below this an image keeps its system and login users. */
const LOWEST_JOB_ID = 10_000;
/** nobody/nogroup (65534) and the overflow id (65535): never a job's. */
const RESERVED_IDS = [65_534, 65_535];
/** Fewer ids than this and the fallback would run out under ordinary load: treat it as unavailable. */
const MIN_RANGE_SIZE = 1_000;

type Extent = { first: number; end: number };

/** The ids a /proc/<pid>/uid_map or gid_map maps (its first column and count), in order. */
export function mappedExtents(idMap: string): Extent[] {
  return idMap
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter((f) => f.length === 3 && f.every(Number.isSafeInteger) && f[2] > 0)
    .map(([inside, , count]) => ({ first: inside, end: inside + count }))
    .sort((a, b) => a.first - b.first);
}

function intersect(a: Extent[], b: Extent[]): Extent[] {
  return a.flatMap((x) =>
    b.map((y) => ({ first: Math.max(x.first, y.first), end: Math.min(x.end, y.end) })).filter((e) => e.end > e.first),
  );
}

function withoutReserved(e: Extent): Extent[] {
  let pieces = [{ first: Math.max(e.first, LOWEST_JOB_ID), end: e.end }];
  for (const id of RESERVED_IDS)
    pieces = pieces.flatMap((p) =>
      id >= p.first && id < p.end
        ? [
            { first: p.first, end: id },
            { first: id + 1, end: p.end },
          ]
        : [p],
    );
  return pieces.filter((p) => p.end > p.first);
}

/**
 * The job ids this runner may use: the preferred range where the user namespace it runs in maps it
 * (uids and gids alike), else the largest mapped stretch above the image's users, so a runner in a
 * rootless or user-namespace-remapped container (typically ids 0-65535 only) still isolates jobs;
 * null when too few ids are mapped (the fallback then says it cannot run).
 */
export function jobUidRange(uidMap: string, gidMap: string): UidRange | null {
  const usable = intersect(mappedExtents(uidMap), mappedExtents(gidMap));
  const preferredEnd = PREFERRED_UID_RANGE.first + PREFERRED_UID_RANGE.size;
  if (usable.some((e) => e.first <= PREFERRED_UID_RANGE.first && e.end >= preferredEnd)) return PREFERRED_UID_RANGE;
  const largest = usable.flatMap(withoutReserved).sort((a, b) => b.end - b.first - (a.end - a.first))[0];
  if (!largest || largest.end - largest.first < MIN_RANGE_SIZE) return null;
  return { first: largest.first, size: Math.min(largest.end - largest.first, PREFERRED_UID_RANGE.size) };
}

let cached: UidRange | null | undefined;

/** This process's job id range (read once: a process's id maps never change). */
export function runnerUidRange(): UidRange | null {
  if (cached === undefined) {
    try {
      cached = jobUidRange(readFileSync("/proc/self/uid_map", "utf8"), readFileSync("/proc/self/gid_map", "utf8"));
    } catch {
      cached = PREFERRED_UID_RANGE; // no /proc/self maps: not Linux's user namespaces, ids as they are
    }
  }
  return cached;
}
