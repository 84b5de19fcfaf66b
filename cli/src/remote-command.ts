import { existsSync, statSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { DIRECTORY_FORMATS, FFMPEG_FLAGS, FFPROBE_FLAGS, REFUSED_FLAGS } from "../../src/jobs/policy/option-tables.ts";
import { DIRECTORY_FILE_PATTERN, isFilterGraphOption } from "../../src/jobs/request/placeholders.ts";
import { sendFilesInGraph } from "./graph-files.ts";

/**
 * A local file of the command. A directory output's files come back beside `path`: with `pattern`
 * (`img%03d.png`, `part%03d.ts`) every file under its own name, else the main file at `path`.
 */
export type LocalFile = { name: string; path: string; directory?: boolean; pattern?: boolean };
export type RemoteCommand = {
  binary: "ffmpeg" | "ffprobe";
  args: string[];
  /** `-i` values: local files to upload, or URLs. */
  uploads: LocalFile[];
  urls: { name: string; url: string }[];
  /** Output positions: local paths the outputs are downloaded to. */
  downloads: LocalFile[];
  overwrite: "yes" | "no" | "ask";
};

const isUrl = (v: string) => /^https?:\/\//i.test(v);
/** ffmpeg's frame-number pattern in a file name (av_get_frame_filename): `%d`, `%03d`. */
export const FRAME_PATTERN = /%0?\d*d/;
/** Options naming a file that goes in the folder of the output that follows them. */
const FILE_BESIDE_OUTPUT = new Set(["hls_segment_filename", "segment_list"]);
const MANY_FILE_FORMATS = new Set<string>(DIRECTORY_FORMATS);

/**
 * An ffmpeg/ffprobe command line as a job: each `-i` (and ffprobe's input) becomes an input
 * placeholder — a local file is uploaded, a URL fetched by the service — and each ffmpeg output path
 * a declared output, downloaded back to that path; so do files named inside filter graphs
 * (`subtitles=subs.srt`). An output that writes many files (HLS, `-f segment`, an `img%03d.png`
 * pattern) is a directory output, and the files its options name beside it (`-segment_list`,
 * `-hls_segment_filename`) are files in it. `-y`/`-n` stay here: they are about local files.
 */
export function toRemoteCommand(binary: "ffmpeg" | "ffprobe", argv: string[]): RemoteCommand {
  const args = [...argv];
  const cmd: RemoteCommand = { binary, args: [], uploads: [], urls: [], downloads: [], overwrite: "ask" };
  let inputs = 0;
  const input = (value: string) => {
    const name = `in${inputs++}`;
    addInput(cmd, name, value);
    return `{{${name}}}`;
  };
  const drop = new Set<number>();
  const flags = new Set<string>([...(binary === "ffmpeg" ? FFMPEG_FLAGS : FFPROBE_FLAGS), ...REFUSED_FLAGS, "y", "n"]);
  let format: string | null = null;
  let beside: { index: number; path: string }[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const option = arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg) ? arg.slice(1).split(":")[0] : null;
    if (option === "y" || option === "n") {
      cmd.overwrite = option === "y" ? "yes" : "no";
      drop.add(i);
    } else if (option !== null && flags.has(option)) {
      // a flag: no value
    } else if (option !== null) {
      // Every other ffmpeg option takes a value (the service says which ones it allows).
      if (option === "i" && i + 1 < args.length) args[i + 1] = input(args[i + 1]);
      if (option === "f") format = args[i + 1] ?? null;
      if (isFilterGraphOption(arg) && i + 1 < args.length) args[i + 1] = sendFilesInGraph(args[i + 1], input);
      if (FILE_BESIDE_OUTPUT.has(option) && i + 1 < args.length) beside.push({ index: i + 1, path: args[i + 1] });
      i++;
    } else if (binary === "ffprobe") {
      args[i] = input(arg);
    } else if (arg === "-" || arg === "/dev/null" || arg === "NUL") {
      args[i] = "-"; // `-f null /dev/null`: the output goes nowhere, here or there
      format = null;
    } else {
      const name = `out${cmd.downloads.length}`;
      const pattern = FRAME_PATTERN.test(basename(arg));
      // An .m3u8 playlist is HLS: its segments come back too, beside it.
      const hls = extname(arg).toLowerCase() === ".m3u8" && (format === null || format === "hls");
      const directory = hls || pattern || (format !== null && MANY_FILE_FORMATS.has(format));
      cmd.downloads.push({
        name,
        path: resolve(arg),
        ...(directory ? { directory: true } : {}),
        ...(pattern ? { pattern: true } : {}),
      });
      args[i] = `{{${name}}}`;
      if (directory) for (const b of beside) args[b.index] = fileInOutput(b.path, arg, name);
      beside = [];
      format = null;
    }
  }
  cmd.args = args.filter((_, i) => !drop.has(i));
  return cmd;
}

/** A file an option names beside a directory output (`-segment_list list.m3u8`) as a file in that output. */
function fileInOutput(path: string, output: string, name: string): string {
  if (resolve(dirname(path)) !== resolve(dirname(output)) || !DIRECTORY_FILE_PATTERN.test(basename(path))) {
    throw new Error(
      `ffjobs: ${path} must be a plain file name in the same folder as ${output} (the service writes it beside the output's other files)`,
    );
  }
  return `{{${name}/${basename(path)}}}`;
}

/** A command's input under `name`: a URL stays a URL, a local file is to be uploaded; anything else is an error, as in ffmpeg. */
export function addInput(cmd: Pick<RemoteCommand, "urls" | "uploads">, name: string, value: string): void {
  if (isUrl(value)) cmd.urls.push({ name, url: value });
  else if (existsSync(value) && statSync(value).isFile()) cmd.uploads.push({ name, path: resolve(value) });
  else throw new Error(`${value}: No such file or directory`);
}

/** The job's inputs by name, once the local ones are uploaded (asset ids by input name). */
export function jobInputs(cmd: Pick<RemoteCommand, "urls" | "uploads">, assetIds: Record<string, string>) {
  return Object.fromEntries([
    ...cmd.urls.map((u) => [u.name, { type: "url" as const, url: u.url }]),
    ...cmd.uploads.map((u) => [u.name, { type: "asset" as const, assetId: assetIds[u.name] }]),
  ]);
}

/** The job body for a remote command, once its local inputs are uploaded (asset ids by input name). */
export function jobBody(cmd: RemoteCommand, assetIds: Record<string, string>) {
  const inputs = jobInputs(cmd, assetIds);
  // The service names files plainly; the extension (which picks the muxer) is kept, the local name restored on download.
  const outputs = Object.fromEntries(
    cmd.downloads.map((d) => [
      d.name,
      d.directory
        ? {
            kind: "directory" as const,
            fileName:
              basename(d.path)
                .replace(/[^A-Za-z0-9._%-]/g, "_")
                .replace(/^[._-]+/, "") || "index.m3u8",
          }
        : { fileName: `${d.name}${extname(d.path).replace(/[^A-Za-z0-9.]/g, "")}` },
    ]),
  );
  return { binary: cmd.binary, inputs, outputs, ffmpegArgs: cmd.args };
}
