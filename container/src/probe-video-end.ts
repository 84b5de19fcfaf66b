import type { JobFolder } from "./job-folder.ts";
import { sandboxedFfprobe } from "./probe.ts";
import type { RunnerSettings } from "./settings.ts";

/** Packets read from the last keyframe on: a GOP of 40 s at 25 fps. More, and the end is not where the read stopped. */
const MAX_TAIL_PACKETS = 1000;

/**
 * Where an input's video really ends, whatever its header claims (a 30 s file whose Duration
 * said 5 days planned 256 segments, 255 of them empty, and was billed for each). ffprobe seeks to the
 * claimed end, which lands on the last keyframe at or before it (the index says where the keyframes
 * are, not the header), and reads the video's packets from there: if the file ends within
 * MAX_TAIL_PACKETS, the last packet's end is the video's. Null when it could not tell (no index to
 * seek by, a longer tail, an unreadable file). Runs in the job's sandbox, as every probe of a client's file.
 */
export async function probeVideoEnd(
  folder: JobFolder,
  settings: RunnerSettings,
  name: string,
  claimedEndSeconds: number,
): Promise<number | null> {
  const path = folder.visiblePath(name);
  if (!path || !Number.isFinite(claimedEndSeconds) || claimedEndSeconds < 0) return null;
  const options = [
    "-select_streams",
    "V:0",
    "-read_intervals",
    `${claimedEndSeconds.toFixed(6)}%+#${MAX_TAIL_PACKETS}`,
    "-show_entries",
    "packet=pts_time,duration_time",
    "-of",
    "csv=p=0",
  ];
  const stdout = await sandboxedFfprobe(folder, settings, options, path);
  const packets = (stdout ?? "")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(",").map(Number));
  if (!packets.length || packets.length >= MAX_TAIL_PACKETS) return null;
  const ends = packets
    .map(([pts, duration]) => pts + (Number.isFinite(duration) ? duration : 0))
    .filter(Number.isFinite);
  return ends.length ? Math.max(...ends) : null;
}
