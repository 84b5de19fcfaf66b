import { execFile } from "node:child_process";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import {
  keyframeScanOptions,
  keyframesFromPackets,
  sceneFromScan,
  sceneScanArguments,
  type CutScan,
  type SceneScan,
} from "../../src/jobs/split/scene-cuts.ts";
import { isolatedCommand } from "./isolation.ts";
import type { JobFolder } from "./job-folder.ts";
import { PROBE_LIMITS, PROBE_MAX_STDOUT_BYTES, PROBE_TIMEOUT_MS, sandboxedFfprobe } from "./probe.ts";
import type { RunnerSettings } from "./settings.ts";

/**
 * What lies around each planned cut of a split (src/jobs/split/scene-cuts.ts): the keyframes in every
 * window, by one ffprobe (a demux), then each window decoded and scored by an ffmpeg of its own, one at a
 * time, each in the job's sandbox within what is left of `deadline`. A cut whose scan fails, or that the
 * deadline leaves unscanned, is null: it stays where it was planned.
 */
export async function scanCuts(
  folder: JobFolder,
  settings: RunnerSettings,
  name: string,
  scan: SceneScan,
  deadline: number,
): Promise<(CutScan | null)[]> {
  const path = folder.visiblePath(name);
  if (!path) return scan.cutsSeconds.map(() => null);
  const packets = await sandboxedFfprobe(folder, settings, keyframeScanOptions(scan), path);
  const scans: (CutScan | null)[] = [];
  for (const cut of scan.cutsSeconds) {
    const timeoutMs = Math.min(PROBE_TIMEOUT_MS, deadline - Date.now());
    const stdout =
      timeoutMs > 0
        ? await sandboxedFfmpeg(folder, settings, sceneScanArguments(cut, scan, path, inputSafetyOptions), timeoutMs)
        : null;
    scans.push(
      stdout === null && packets === null
        ? null
        : {
            scene: stdout === null ? null : sceneFromScan(stdout, cut, scan.windowSeconds),
            keyframesSeconds: packets === null ? [] : keyframesFromPackets(packets, cut, scan.windowSeconds),
          },
    );
  }
  return scans;
}

/** An ffmpeg that only measures (`-f null`), in the job's sandbox under a probe's limits; its stdout, or null when it failed. */
function sandboxedFfmpeg(
  folder: JobFolder,
  settings: RunnerSettings,
  argv: string[],
  timeoutMs: number,
): Promise<string | null> {
  const limits = { ...PROBE_LIMITS, addressSpaceBytes: settings.maxMemoryBytes };
  const command = isolatedCommand(settings, folder, "ffmpeg", ["-hide_banner", "-nostdin", ...argv], limits);
  return new Promise((resolve) => {
    execFile(
      command.file,
      command.args,
      { env: command.env, timeout: timeoutMs, maxBuffer: PROBE_MAX_STDOUT_BYTES },
      (err, stdout) => resolve(err ? null : stdout),
    );
  });
}
