import type { CreateJobRequest } from "../../api/schemas/job-request.ts";
import { arrayInputName, DIRECTORY_FILE_PATTERN, placeholderTarget, scanPlaceholders } from "./placeholders.ts";
import { checkArguments, walkArguments } from "../policy/argument-policy.ts";
import { muxerForFileName } from "../policy/output-extensions.ts";
import { declaredNames } from "../policy/declared-names.ts";
import type { Binary, RequestIssue } from "./job-request.ts";

type Command = { binary: Binary; args: string[]; path: string[] };

/**
 * Cross-field rules the schema cannot express: input forms, placeholder names, unused outputs, and
 * the argument policy for every command (each step of a multi-step job, at `steps[k].ffmpegArgs`).
 */
export function checkJobRequest(req: CreateJobRequest): RequestIssue[] {
  const issues: RequestIssue[] = [];
  if (req.input && req.inputs) {
    issues.push({ path: ["input"], message: "use either `input` (array) or `inputs` (map), not both" });
    return issues;
  }
  const inputNames = new Set(req.input ? req.input.map((_, i) => arrayInputName(i)) : Object.keys(req.inputs ?? {}));
  const outputNames = Object.keys(req.outputs ?? {});
  const scratchNames = Object.keys(req.scratch ?? {});
  for (const name of outputNames) {
    if (inputNames.has(name))
      issues.push({ path: ["outputs", name], message: `"${name}" is already the name of an input` });
  }
  for (const name of scratchNames) {
    if (inputNames.has(name) || outputNames.includes(name))
      issues.push({ path: ["scratch", name], message: `"${name}" is already the name of an input or output` });
  }
  const commands: Command[] = req.steps
    ? req.steps.map((s, k) => ({
        binary: s.binary ?? req.binary,
        args: s.ffmpegArgs,
        path: ["steps", String(k), "ffmpegArgs"],
      }))
    : [{ binary: req.binary, args: req.ffmpegArgs ?? [], path: ["ffmpegArgs"] }];
  const known = new Set([...inputNames, ...outputNames, ...scratchNames]);
  const directories = outputNames.filter((n) => req.outputs?.[n]?.kind === "directory");
  const names = declaredNames([...inputNames], outputNames, scratchNames, req.steps !== undefined, directories);
  const referenced = new Set<string>();
  for (const command of commands) {
    const at = (index: number) => [...command.path, String(index)];
    if (/^(.*\/)?(ffmpeg|ffprobe)$/.test(command.args[0] ?? "")) {
      issues.push({
        path: at(0),
        message: `drop the binary name: ${command.path.join(".")} holds only the arguments (say "binary": "ffprobe" to run ffprobe)`,
      });
    }
    for (const o of outputsWritten(command, req).filter((w) => !w.formatGiven)) {
      const muxer = muxerForFileName(o.fileName);
      const at = ["outputs", o.name, "fileName"];
      const fileName = req.outputs![o.name].fileName;
      if (muxer === null)
        issues.push({
          path: at,
          message: `"${fileName}" has no extension ffmpeg can pick a format from: name it like ${o.name}.mp4, or put -f <format> before {{${o.name}}}`,
        });
      else if (muxer === "hls" && !o.directory)
        issues.push({
          path: at,
          message: `"${fileName}" makes ffmpeg write HLS (a playlist and its segments): declare the output with "kind": "directory"`,
        });
    }
    const { uses, problems } = scanPlaceholders(command.args);
    for (const p of problems) issues.push({ path: at(p.index), message: p.message });
    for (const use of uses) {
      if (use.percent !== undefined && (!inputNames.has(use.name) || use.percent > 100)) {
        issues.push({
          path: at(use.index),
          message: `{{name@P%}} takes an input's name and a percentage from 0 to 100`,
        });
      } else if (use.file !== undefined && !directories.includes(use.name)) {
        issues.push({
          path: at(use.index),
          message: `{{${use.name}/…}} names a file inside a directory output, and "${use.name}" is not one`,
        });
      } else if (use.file !== undefined && !DIRECTORY_FILE_PATTERN.test(use.file)) {
        issues.push({
          path: at(use.index),
          message: `"${use.file}" is not a plain file name (letters, digits, . _ - %; no slash)`,
        });
      } else if (known.has(use.name)) referenced.add(use.name);
      else
        issues.push({
          path: at(use.index),
          message: `{{${use.name}}} matches no declared input, output or scratch file`,
        });
    }
    for (const p of checkArguments(command.binary, command.args, names))
      issues.push({ path: at(p.index), message: p.message });
  }
  const where = req.steps ? "any step" : "ffmpegArgs";
  for (const name of outputNames) {
    if (!referenced.has(name))
      issues.push({
        path: ["outputs", name],
        message: `output "${name}" is never referenced as {{${name}}} in ${where}`,
      });
  }
  return firstPerPath(issues);
}

/** The outputs a command writes (by output name), each with its file name and whether an -f before it names the format. */
function outputsWritten(command: Command, req: CreateJobRequest) {
  if (command.binary !== "ffmpeg") return [];
  const found: { name: string; fileName: string; directory: boolean; formatGiven: boolean }[] = [];
  let format = false;
  for (const token of walkArguments("ffmpeg", command.args)) {
    if (token.kind === "option" && token.name === "f") format = true;
    else if (token.kind === "option" && token.name === "i") format = false;
    else if (token.kind === "positional") {
      const target = placeholderTarget(token.value);
      const decl = target && req.outputs?.[target.name];
      if (decl)
        found.push({
          name: target.name,
          fileName: target.file ?? decl.fileName,
          directory: decl.kind === "directory",
          formatGiven: format,
        });
      format = false;
    }
  }
  return found;
}

/** One issue per location: the first found is the most basic (placeholders before policy). */
function firstPerPath(issues: RequestIssue[]): RequestIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = JSON.stringify(i.path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
