import type { RunnerProgress } from "../../src/runner/runner-protocol.ts";

/**
 * Reads ffmpeg's `-progress` stream (key=value lines, each block closed by `progress=...`) and turns
 * each block into a progress figure; the inputs' duration (once known) gives the percentage. `onBlock`
 * sees each block as read (the stall watch).
 */
export function createProgressParser(
  durationSeconds: number | null | (() => number | null),
  onProgress: (p: RunnerProgress) => void,
  onBlock: (block: Readonly<Record<string, string>>) => void = () => {},
) {
  const duration = typeof durationSeconds === "function" ? durationSeconds : () => durationSeconds;
  let pending = "";
  let block: Record<string, string> = {};
  return (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const eq = line.indexOf("=");
      if (eq <= 0) continue;
      const key = line.slice(0, eq).trim();
      const value = line.slice(eq + 1).trim();
      block[key] = value;
      if (key === "progress") {
        onBlock(block);
        onProgress(progressFromBlock(block, duration(), value === "end"));
        block = {};
      }
    }
  };
}

export function progressFromBlock(
  block: Record<string, string>,
  durationSeconds: number | null,
  ended: boolean,
): RunnerProgress {
  const outUs = Number(block.out_time_us ?? block.out_time_ms);
  const outTimeSeconds = Number.isFinite(outUs) && outUs >= 0 ? Math.round(outUs / 1000) / 1000 : null;
  const speedMatch = /^([\d.]+)x$/.exec(block.speed ?? "");
  const speed = speedMatch ? Number(speedMatch[1]) : null;
  const frame = Number(block.frame);
  const frames = block.frame !== undefined && Number.isSafeInteger(frame) && frame >= 0 ? frame : null;
  let percent: number | null = null;
  if (ended) percent = 100;
  else if (outTimeSeconds !== null && durationSeconds && durationSeconds > 0) {
    percent = Math.min(99.9, Math.round((outTimeSeconds / durationSeconds) * 1000) / 10);
  }
  return { percent, outTimeSeconds, speed, frames };
}
