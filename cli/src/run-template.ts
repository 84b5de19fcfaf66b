import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { FfjobsClient } from "../../client/src/index.ts";
import { fillTemplate } from "../../src/templates/fill-template.ts";
import { type TemplateValue, variableValues } from "../../src/templates/variable-values.ts";
import type { TemplateVariable } from "../../src/api/schemas/templates.ts";
import { fileInFolder } from "./local-files.ts";
import { addInput, FRAME_PATTERN, jobInputs, type RemoteCommand } from "./remote-command.ts";
import { runRemote } from "./run-remote.ts";

export const RUN_TEMPLATE_USAGE = `usage: ffjobs run --template <name> [var=value ...] [-i input=FILE|URL ...] [-o output=PATH ...] [-y]
  Runs one of the account's job templates with these values and downloads its outputs.
  var=value   a variable's value (numbers and true/false as text are read as the variable's type)
  -i          an input of the template's job, sent in place of its own: a file here (uploaded), or a URL
  -o          where an output goes (else its file name here); a directory output goes into the folder named
  --version   a version of the template other than its newest
  -y          overwrite files that are there`;

type TemplateOutputs = Record<string, { fileName?: string; kind?: string }>;

/**
 * `ffjobs run --template NAME k=v -i video=clip.mp4 -o small=out.mp4`: the template is read first, for
 * its outputs' names, so each is downloaded where asked (or under its file name, filled with the
 * values as the service fills it, here); the service checks the values and the job they make.
 */
export async function runTemplate(client: FfjobsClient, argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name.startsWith("-")) throw new Error(RUN_TEMPLATE_USAGE);
  const vars: Record<string, string> = {};
  const outs: Record<string, string> = {};
  const cmd: RemoteCommand = { binary: "ffmpeg", args: [], uploads: [], urls: [], downloads: [], overwrite: "ask" };
  let version: number | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "-i" || a === "-o") {
      const [key, value] = splitPair(rest[++i], a);
      if (a === "-i") addInput(cmd, key, value);
      else outs[key] = value;
    } else if (a === "--version") version = Number(rest[++i]);
    else if (a === "-y") cmd.overwrite = "yes";
    else if (a.includes("=") && !a.startsWith("-")) {
      const [key, value] = splitPair(a, "a value");
      vars[key] = value;
    } else throw new Error(`ffjobs run: unexpected "${a}"\n${RUN_TEMPLATE_USAGE}`);
  }
  const template = await client.getTemplate(name, { version });
  const outputs = (template.job.outputs ?? {}) as TemplateOutputs;
  const values = filledValues(template.variables, vars);
  for (const [output, declared] of Object.entries(outputs)) {
    const written = declared.fileName ?? output;
    const filled = fillTemplate(written, values);
    const fileName = "body" in filled ? String(filled.body) : written;
    const asked = outs[output];
    const directory = declared.kind === "directory";
    const folder = directory && asked !== undefined ? resolve(asked) : null;
    if (folder) mkdirSync(folder, { recursive: true });
    const what = `template ${name}'s output name`;
    const path = folder
      ? fileInFolder(folder, fileName, what)
      : asked !== undefined
        ? resolve(asked)
        : fileInFolder(process.cwd(), fileName, what);
    // Two outputs at one path: the second would overwrite the first, whatever -y says.
    const clash = cmd.downloads.find((d) => d.path === path);
    if (clash) throw new Error(`ffjobs run: outputs "${clash.name}" and "${output}" would both be written to ${path}`);
    cmd.downloads.push({ name: output, path, ...(directory && FRAME_PATTERN.test(fileName) ? { pattern: true } : {}) });
  }
  for (const output of Object.keys(outs)) {
    if (!Object.hasOwn(outputs, output)) throw new Error(`ffjobs run: template ${name} has no output "${output}"`);
  }
  // The version read is the one run: the outputs' paths were worked out from it.
  return runRemote(client, cmd, undefined, (assetIds) => {
    const inputs = jobInputs(cmd, assetIds);
    return {
      template: name,
      version: template.version,
      vars,
      ...(Object.keys(inputs).length ? { inputs } : {}),
    };
  });
}
function splitPair(arg: string | undefined, what: string): [string, string] {
  const at = arg?.indexOf("=") ?? -1;
  if (!arg || at <= 0) throw new Error(`ffjobs run: ${what} takes name=value, got "${arg ?? ""}"`);
  return [arg.slice(0, at), arg.slice(at + 1)];
}

/**
 * The values as the service reads them, for the outputs' file names: typed by their variables (`0480` is
 * 480, as the service fills it), defaults where none is given. Where a value does not fit its variable,
 * its text: the service refuses the job and says why.
 */
function filledValues(variables: Record<string, TemplateVariable>, vars: Record<string, string>) {
  const typed = variableValues(variables, vars, new Set());
  if ("values" in typed) return typed.values;
  const values: Record<string, TemplateValue> = {};
  for (const [name, v] of Object.entries(variables)) {
    const value = Object.hasOwn(vars, name) ? vars[name] : v.default;
    if (value !== undefined) values[name] = value;
  }
  return values;
}
