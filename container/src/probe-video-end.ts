import { execFile } from "node:child_process";
import { inputSafetyOptions } from "../../src/jobs/command-line.ts";
import type { JobFolder } from "./job-folder.ts";
import { isolatedCommand } from "./isolation.ts";
import type { RunnerSettings } from "./settings.ts";

const PROBE_TIMEOUT_MS = 30_000;
/** Packets read from the last keyframe on: a GOP of 40 s at 25 fps. More, and the end is not where the read stopped. */
const MAX_TAIL_PACKETS = 1000;

/**
 * Where an input's video really ends, whatever its header claims (issue 29: a 30 s file whose Duration
 * said 5 days planned 256 segments, 255 of them empty, and was billed for each). ffprobe seeks to the
 * claimed end, which lands on the last keyframe at or before it (the index says where the keyframes
 * are, not the header), and reads the video's packets from there: if the file ends within
 * MAX_TAIL_PACKETS, the last packet's end is the video's. Null when it could not tell (no index to
 * seek by, a longer tail, an unreadable file). Runs in the job's sandbox, as every probe of a client's file.
 */
export function probeVideoEnd(folder: JobFolder, settings: RunnerSettings, name: string, claimedEndSeconds: number): Promise<number | null> {
  const path = folder.visiblePath(name);
  if (!path || !Number.isFinite(claimedEndSeconds) || claimedEndSeconds < 0) return Promise.resolve(null);
  const argv = [
    "-v", "error", ...inputSafetyOptions(path), "-select_streams", "V:0", "-read_intervals", `${claimedEndSeconds.toFixed(6)}%+#${MAX_TAIL_PACKETS}`,
    "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path,
  ];
  const limits = { cpuSeconds: 30, fileSizeBytes: 1024 * 1024, openFiles: 256, processes: 64, addressSpaceBytes: settings.maxMemoryBytes };
  const command = isolatedCommand(settings, folder, "ffprobe", argv, limits);
  return new Promise((resolve) => {
    execFile(command.file, command.args, { env: command.env, timeout: PROBE_TIMEOUT_MS, maxBuffer: 1024 * 1024 }, (err, stdout) => {
      if (err) return resolve(null);
      const packets = stdout.split("\n").filter(Boolean).map((line) => line.split(",").map(Number));
      if (!packets.length || packets.length >= MAX_TAIL_PACKETS) return resolve(null);
      const ends = packets.map(([pts, duration]) => pts + (Number.isFinite(duration) ? duration : 0)).filter(Number.isFinite);
      resolve(ends.length ? Math.max(...ends) : null);
    });
  });
}
