import { existsSync, statSync } from "node:fs";
import { extname, resolve } from "node:path";
import { walkArguments } from "../../src/jobs/policy/argument-policy.ts";

export type LocalFile = { name: string; path: string };
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

/**
 * An ffmpeg/ffprobe command line as a job: each `-i` (and ffprobe's input) becomes an input
 * placeholder — a local file is uploaded, a URL fetched by the service — and each ffmpeg output path
 * a declared output, downloaded back to that path. `-y`/`-n` stay here: they are about local files.
 */
export function toRemoteCommand(binary: "ffmpeg" | "ffprobe", argv: string[]): RemoteCommand {
  const args = [...argv];
  const cmd: RemoteCommand = { binary, args: [], uploads: [], urls: [], downloads: [], overwrite: "ask" };
  let inputs = 0;
  const input = (value: string) => {
    const name = `in${inputs++}`;
    if (isUrl(value)) cmd.urls.push({ name, url: value });
    else if (existsSync(value) && statSync(value).isFile()) cmd.uploads.push({ name, path: resolve(value) });
    else throw new Error(`${value}: No such file or directory`);
    return `{{${name}}}`;
  };
  const drop = new Set<number>();
  for (const token of walkArguments(binary, args)) {
    if (token.kind === "flag" && (token.name === "y" || token.name === "n")) {
      cmd.overwrite = token.name === "y" ? "yes" : "no";
      drop.add(token.index);
    } else if (token.kind === "option" && token.name === "i" && token.value !== undefined) {
      args[token.valueIndex] = input(token.value);
    } else if (token.kind === "positional") {
      if (binary === "ffprobe") args[token.index] = input(token.value);
      else if (token.value !== "-") {
        const name = `out${cmd.downloads.length}`;
        cmd.downloads.push({ name, path: resolve(token.value) });
        args[token.index] = `{{${name}}}`;
      }
    }
  }
  cmd.args = args.filter((_, i) => !drop.has(i));
  return cmd;
}

/** The job body for a remote command, once its local inputs are uploaded (asset ids by input name). */
export function jobBody(cmd: RemoteCommand, assetIds: Record<string, string>) {
  const inputs = Object.fromEntries([
    ...cmd.urls.map((u) => [u.name, { type: "url" as const, url: u.url }]),
    ...cmd.uploads.map((u) => [u.name, { type: "asset" as const, assetId: assetIds[u.name] }]),
  ]);
  // The service names files plainly; the extension (which picks the muxer) is kept, the local name restored on download.
  const outputs = Object.fromEntries(cmd.downloads.map((d) => [d.name, { fileName: `${d.name}${extname(d.path).replace(/[^A-Za-z0-9.]/g, "")}` }]));
  return { binary: cmd.binary, inputs, outputs, ffmpegArgs: cmd.args };
}
