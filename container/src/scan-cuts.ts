import { execFile } from "node:child_process";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import {
  framesFromScan,
  MAX_SCENE_SCAN_PREROLL_SECONDS,
  sceneOf,
  sceneScanArguments,
  type CutScan,
  type SceneScan,
} from "../../src/jobs/split/scene-cuts.ts";
import {
  chosenKeyframe,
  decodesFrom,
  keyframeAtOrBefore,
  keyframeCheckArguments,
  keyframeScanOptions,
  keyframesIn,
  packetBefore,
  packetsFromListing,
} from "../../src/jobs/split/keyframe-scan.ts";
import { isolatedCommand } from "./isolation.ts";
import type { JobFolder } from "./job-folder.ts";
import { PROBE_LIMITS, PROBE_MAX_STDOUT_BYTES, PROBE_TIMEOUT_MS } from "./probe.ts";
import type { RunnerSettings } from "./settings.ts";

/** Keyframes checked per cut: the one the plan would start on, and one more if that one does not decode by itself. */
const KEYFRAME_CHECKS_PER_CUT = 2;

/**
 * What lies around each planned cut of a split (src/jobs/split/scene-cuts.ts): the keyframes in every
 * window, by one ffprobe (a demux); then each window decoded and scored by an ffmpeg of its own, and the
 * keyframe a segment would start on checked to decode by itself (a flag in the index is not proof). One
 * process at a time, on one thread, each in the job's sandbox within what is left of `deadline`. A cut
 * whose scan fails, or that the deadline leaves unscanned, is null: it stays where it was planned.
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
  return scanCutsWith((binary, argv) => sandboxed(folder, settings, binary, argv, deadline), path, scan);
}

/** A measuring process: its stdout, or null when it failed. */
export type MeasureRun = (binary: "ffmpeg" | "ffprobe", argv: string[]) => Promise<string | null>;

/** scanCuts' work, each process run by `run` on the input at `path`. */
export async function scanCutsWith(run: MeasureRun, path: string, scan: SceneScan): Promise<(CutScan | null)[]> {
  const listing = await run("ffprobe", ["-v", "error", ...keyframeScanOptions(scan), path]);
  const packets = listing === null ? null : packetsFromListing(listing);
  const scans: (CutScan | null)[] = [];
  let sceneMs = 0;
  for (const cut of scan.cutsSeconds) {
    const from = cut - scan.windowSeconds;
    // A window whose decode would start far before it, or past the scan's time, is not scanned for a change
    // of scene (its keyframes are).
    const landing = packets === null ? null : keyframeAtOrBefore(packets, from);
    const scanned =
      (landing === null || from - landing <= MAX_SCENE_SCAN_PREROLL_SECONDS) &&
      sceneMs < (scan.budgetMs ?? Number.POSITIVE_INFINITY);
    const started = Date.now();
    const stdout = scanned ? await run("ffmpeg", sceneScanArguments(cut, scan, path, inputSafetyOptions)) : null;
    sceneMs += Date.now() - started;
    if (packets === null && stdout === null) {
      scans.push(null);
      continue;
    }
    const scene = stdout === null ? null : sceneOf(framesFromScan(stdout, cut, scan.windowSeconds));
    const candidates = packets === null ? [] : keyframesIn(packets, cut, scan.windowSeconds);
    const keyframes: CutScan["keyframes"] = [];
    for (let k = 0; k < KEYFRAME_CHECKS_PER_CUT && keyframes.length === 0; k++) {
      const at = chosenKeyframe(scene, candidates, cut, scan.windowSeconds);
      if (at === null) break;
      const check = await run("ffmpeg", keyframeCheckArguments(at, scan.formatStartSeconds, path, inputSafetyOptions));
      if (check !== null && decodesFrom(check, at))
        keyframes.push({ atSeconds: at, beforeSeconds: packetBefore(packets!, at, from) });
      else candidates.splice(candidates.indexOf(at), 1);
    }
    scans.push({ scene, keyframes });
  }
  return scans;
}

/** A measuring process in the job's sandbox under a probe's limits, within the deadline; its stdout, or null when it failed. */
function sandboxed(
  folder: JobFolder,
  settings: RunnerSettings,
  binary: "ffmpeg" | "ffprobe",
  argv: string[],
  deadline: number,
): Promise<string | null> {
  const timeoutMs = Math.min(PROBE_TIMEOUT_MS, deadline - Date.now());
  if (timeoutMs <= 0) return Promise.resolve(null);
  const limits = { ...PROBE_LIMITS, addressSpaceBytes: settings.maxMemoryBytes };
  const command = isolatedCommand(settings, folder, binary, argv, limits);
  return new Promise((resolve) => {
    execFile(
      command.file,
      command.args,
      { env: command.env, timeout: timeoutMs, maxBuffer: PROBE_MAX_STDOUT_BYTES },
      (err, stdout) => resolve(err ? null : stdout),
    );
  });
}
