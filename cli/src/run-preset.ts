import type { FfjobsClient } from "../../client/src/index.ts";
import { runRemote } from "./run-remote.ts";
import { addInput, jobInputs, type RemoteCommand } from "./remote-command.ts";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { fileInFolder } from "./local-files.ts";

/**
 * `ffjobs run PRESET --param k=v -i in.mp4 [-o out.jpg]`: the preset's inputs in its order (`-i` each),
 * its outputs downloaded to the `-o` paths in its order (else to their default names here).
 * Parameter values are JSON when they parse as JSON (`--param height=480`), else strings.
 */
export async function runPreset(client: FfjobsClient, argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name) throw new Error("usage: ffjobs run <preset> [--param key=value ...] -i <input> ... [-o <output> ...]");
  const params: Record<string, unknown> = {};
  const ins: string[] = [];
  const outs: string[] = [];
  let overwrite: RemoteCommand["overwrite"] = "ask";
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--param") {
      const [k, ...v] = (rest[++i] ?? "").split("=");
      const raw = v.join("=");
      try {
        params[k] = JSON.parse(raw);
      } catch {
        params[k] = raw;
      }
    } else if (a === "-i") ins.push(rest[++i]);
    else if (a === "-o") outs.push(rest[++i]);
    else if (a === "-y") overwrite = "yes";
    else throw new Error(`ffjobs run: unexpected "${a}"`);
  }
  const preset = (await client.getPreset(name)) as {
    inputs: string[] | Record<string, string>;
    outputs: Record<string, { fileName: string; kind?: string }>;
  };
  const inputNames = Array.isArray(preset.inputs) ? preset.inputs : ins.map((_, i) => `input${i}`);
  const outputNames = Object.keys(preset.outputs);
  const cmd: RemoteCommand = { binary: "ffmpeg", args: [], uploads: [], urls: [], downloads: [], overwrite };
  for (const [i, value] of ins.entries()) addInput(cmd, inputNames[i] ?? `input${i}`, value);
  // Without -o an output lands in the working directory under the preset's name for it, which
  // comes from the server: only a plain file name is taken.
  // A directory output (an HLS ladder's playlists and segments) given `-o out` goes into the folder `out`,
  // its main file under the preset's name for it, the rest beside it.
  for (const [i, o] of outputNames.entries()) {
    const { fileName, kind } = preset.outputs[o];
    const folder = kind === "directory" && outs[i] !== undefined ? resolve(outs[i]) : null;
    if (folder) mkdirSync(folder, { recursive: true });
    cmd.downloads.push({
      name: o,
      path: folder
        ? fileInFolder(folder, fileName, `preset ${name}'s output name`)
        : outs[i] !== undefined
          ? resolve(outs[i])
          : fileInFolder(process.cwd(), fileName, `preset ${name}'s output name`),
    });
  }
  return runRemote(client, cmd, undefined, (assetIds) => {
    const inputs = jobInputs(cmd, assetIds);
    return Array.isArray(preset.inputs)
      ? { mode: "preset" as const, preset: name, inputs, params }
      : { mode: "preset" as const, preset: name, input: inputNames.map((n) => inputs[n]), params };
  });
}
