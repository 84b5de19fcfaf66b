import { inWindow, seekedVideo, validScene, type CutScan, type SceneScan } from "./scene-cuts.ts";

/*
 * The keyframes around a split's cuts (scene-cuts.ts): found in the index by a demux, and the one a
 * segment would start on checked by a decode, since a flag in an index is not proof that a picture
 * decodes by itself.
 */

/** Keyframes kept per cut from the packets, nearest first (an all-intra file has a window full of them). */
export const MAX_KEYFRAMES_PER_CUT = 64;

/**
 * ffprobe's arguments (before the path) for the keyframes around every cut at once: the video's packets
 * in each window (`-read_intervals`, a seek and a demux, nothing decoded), their times and flags.
 */
export function keyframeScanOptions(scan: Pick<SceneScan, "cutsSeconds" | "windowSeconds">): string[] {
  const intervals = scan.cutsSeconds.map(
    (cut) => `${(cut - scan.windowSeconds).toFixed(6)}%${(cut + scan.windowSeconds).toFixed(6)}`,
  );
  return [
    "-select_streams",
    "V:0",
    "-read_intervals",
    intervals.join(","),
    "-show_entries",
    "packet=pts_time,flags",
    "-of",
    "csv=p=0",
  ];
}

/** A packet of keyframeScanOptions' listing: its presentation time, and whether it is flagged a keyframe. */
export type ListedPacket = { seconds: number; key: boolean };

/** keyframeScanOptions' stdout, read as untrusted: well-formed lines only (`9.400000,K_`). */
export function packetsFromListing(stdout: string): ListedPacket[] {
  const packets: ListedPacket[] = [];
  for (const line of stdout.split("\n")) {
    const packet = /^(-?\d+(?:\.\d+)?),([K_])/.exec(line);
    if (packet) packets.push({ seconds: Number(packet[1]), key: packet[2] === "K" });
  }
  return packets;
}

/** The keyframes in a cut's window, the MAX_KEYFRAMES_PER_CUT nearest the cut, nearest first. */
export function keyframesIn(packets: ListedPacket[], cutSeconds: number, windowSeconds: number): number[] {
  const found = new Set(
    packets.filter((p) => p.key && inWindow(p.seconds, cutSeconds, windowSeconds)).map((p) => p.seconds),
  );
  return [...found]
    .sort((a, b) => Math.abs(a - cutSeconds) - Math.abs(b - cutSeconds) || a - b)
    .slice(0, MAX_KEYFRAMES_PER_CUT);
}

/** The frame shown just before `seconds` (the latest packet time below it, within `fromSeconds`), or null. */
export function packetBefore(packets: ListedPacket[], seconds: number, fromSeconds: number): number | null {
  return packets.reduce<number | null>(
    (best, p) =>
      p.seconds < seconds && p.seconds >= fromSeconds && (best === null || p.seconds > best) ? p.seconds : best,
    null,
  );
}

/** The keyframe a seek to `seconds` lands on: the latest keyframe at or before it, or null when none was listed. */
export function keyframeAtOrBefore(packets: ListedPacket[], seconds: number): number | null {
  return packets.reduce<number | null>(
    (best, p) => (p.key && p.seconds <= seconds && (best === null || p.seconds > best) ? p.seconds : best),
    null,
  );
}

/**
 * The keyframe a cut would start its segment on (placeCuts' rule, place-cuts.ts): the new scene's first
 * frame where it is a keyframe, else, where the window has no change of scene, the keyframe nearest the
 * cut; null for none. The runner checks that one decodes by itself before it reports it.
 */
export function chosenKeyframe(
  scene: CutScan["scene"],
  candidates: number[],
  cutSeconds: number,
  windowSeconds: number,
): number | null {
  const keyframes = candidates.filter((k) => inWindow(k, cutSeconds, windowSeconds));
  if (scene && validScene(scene, cutSeconds, windowSeconds))
    return keyframes.find((k) => Math.abs(k - scene.atSeconds) <= 2e-6) ?? null;
  return keyframes.reduce<number | null>(
    (best, k) => (best === null || Math.abs(k - cutSeconds) < Math.abs(best - cutSeconds) ? k : best),
    null,
  );
}

/**
 * ffmpeg's arguments for the check that a keyframe decodes by itself: a seek to it (a millisecond past,
 * as a segment's), its first decoded frame's time in microseconds (`framecrc`). A keyframe that needs the
 * frames before it (x264's intra refresh flags recovery points as keyframes; an index with no sync table
 * calls every frame one) comes out later, or not at all.
 */
export function keyframeCheckArguments(
  keyframeSeconds: number,
  formatStartSeconds: number,
  path: string,
  safety: (path: string) => string[],
): string[] {
  return [
    ...seekedVideo(keyframeSeconds + 0.001 - formatStartSeconds, path, safety),
    "-frames:v",
    "1",
    "-enc_time_base:v",
    "1:1000000",
    "-fps_mode",
    "passthrough",
    "-f",
    "framecrc",
    "-",
  ];
}

/** Whether keyframeCheckArguments' first frame is the keyframe (within half a millisecond: no two frames are closer). */
export function decodesFrom(stdout: string, keyframeSeconds: number): boolean {
  const frame = /^\d+,\s*(-?\d+),/m.exec(stdout);
  return frame !== null && Math.abs(Number(frame[1]) / 1e6 - keyframeSeconds) <= 0.0005;
}
