import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { RunnerCapabilities } from "../../src/runner/runner-protocol.ts";

const run = promisify(execFile);
const list = async (binary: string, what: string) =>
  (await run(binary, ["-hide_banner", what], { maxBuffer: 8 * 1024 * 1024 })).stdout;

/** `-encoders`/`-decoders` lines: ` V....D name   Description`. */
export function parseCodecs(text: string) {
  const types: Record<string, "video" | "audio" | "subtitle"> = { V: "video", A: "audio", S: "subtitle" };
  return text
    .split("\n")
    .slice(text.split("\n").findIndex((l) => l.trim() === "------") + 1)
    .flatMap((line) => {
      const m = /^ ([VAS])[.\w]{5} (\S+)\s+(.*)$/.exec(line);
      return m ? [{ name: m[2], type: types[m[1]], description: m[3].trim() }] : [];
    });
}

/** `-muxers`/`-demuxers` lines: ` DE name   Description` (one name may list several: `mov,mp4,m4a`). */
export function parseFormats(text: string) {
  return text
    .split("\n")
    .slice(text.split("\n").findIndex((l) => l.trim() === "--") + 1)
    .flatMap((line) => {
      const m = /^ [D ][E ] (\S+)\s+(.*)$/.exec(line);
      return m ? [{ name: m[1], description: m[2].trim() }] : [];
    });
}

/** `-filters` lines: ` TSC name   A->A   Description`. */
export function parseFilters(text: string) {
  return text.split("\n").flatMap((line) => {
    const m = /^ [T.][S.][C.] (\S+)\s+(\S+->\S+)\s+(.*)$/.exec(line);
    return m ? [{ name: m[1], io: m[2], description: m[3].trim() }] : [];
  });
}

let cached: Promise<Omit<RunnerCapabilities, "sandbox">> | null = null;

/** What the installed ffmpeg and ffprobe can do, read once from the binaries themselves. */
export function capabilities(): Promise<Omit<RunnerCapabilities, "sandbox">> {
  cached ??= (async () => {
    const [ffmpegVersion, ffprobeVersion, encoders, decoders, muxers, demuxers, filters] = await Promise.all([
      list("ffmpeg", "-version"),
      list("ffprobe", "-version"),
      list("ffmpeg", "-encoders"),
      list("ffmpeg", "-decoders"),
      list("ffmpeg", "-muxers"),
      list("ffmpeg", "-demuxers"),
      list("ffmpeg", "-filters"),
    ]);
    const firstLine = (t: string) => t.split("\n")[0].replace(/ Copyright.*$/, "");
    return {
      ffmpeg: firstLine(ffmpegVersion),
      ffprobe: firstLine(ffprobeVersion),
      encoders: parseCodecs(encoders),
      decoders: parseCodecs(decoders),
      muxers: parseFormats(muxers),
      demuxers: parseFormats(demuxers),
      filters: parseFilters(filters),
    };
  })();
  cached.catch(() => (cached = null));
  return cached;
}
