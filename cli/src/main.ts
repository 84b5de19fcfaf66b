// ffjobs: run your usual ffmpeg/ffprobe command on an ffjobs service, and manage jobs.
//   ffjobs ffmpeg -i in.mov -vf scale=640:-2 out.mp4      ffjobs ffprobe -show_format in.mp4
//   ffjobs jobs list | get ID | wait ID | cancel ID        ffjobs presets
//   ffjobs run PRESET [--param k=v ...] -i INPUT ... [-o OUTPUT ...]
//   ffjobs run --template NAME [var=value ...] [-i input=FILE ...] [-o output=PATH ...]      ffjobs templates
import { createClient, FfjobsError } from "../../client/src/index.ts";
import { readCliConfig } from "./config.ts";
import { toRemoteCommand } from "./remote-command.ts";
import { runRemote } from "./run-remote.ts";
import { runPreset } from "./run-preset.ts";
import { RUN_TEMPLATE_USAGE, runTemplate } from "./run-template.ts";
import { printableText } from "../../src/encoding/printable-text.ts";
import { jobBody } from "./remote-command.ts";
import { checksFromEnv, withChecks } from "./output-checks.ts";
import type { CreateJobRequest } from "../../client/src/index.ts";

const USAGE = `usage: ffjobs ffmpeg <ffmpeg arguments> | ffprobe <ffprobe arguments>
       ffjobs jobs list|get <id>|wait <id>|cancel <id>|command <id>   (command: a script that reruns it locally)
       ffjobs presets
       ffjobs run <preset> [--param key=value ...] -i <input> ... [-o <output> ...]
       ffjobs run --template <name> [var=value ...] [-i input=FILE|URL ...] [-o output=PATH ...]
       ffjobs templates
settings: FFJOBS_URL and FFJOBS_API_KEY (or ~/.config/ffjobs/config.json)
checks:   FFJOBS_CHECKS='{"fullDecode":true}' on every output, FFJOBS_ON_FAILED_CHECK=report to keep outputs
          that miss one (a miss otherwise exits 3, nothing downloaded)`;

const RUN_USAGE = `usage: ffjobs run <preset> [--param key=value ...] -i <input> ... [-o <output> ...] [-y]
  Runs a preset (ffjobs presets lists them) on local files or URLs and downloads its outputs.
  -i        each of the preset's inputs, in its order (a file here, or an http(s) URL)
  -o        where each of its outputs goes, in its order (else its own name here); a directory output
            (hls-ladder's) goes into the folder named, made if needed
  --param   a parameter, its value as JSON where it parses (height=480), else text (color=#ff0000)
  -y        overwrite files that are there`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "-h" || command === "--help") {
    process.stderr.write(`${USAGE}\n`);
    return command ? 0 : 1;
  }
  // Help needs no service: asked anywhere after a command (not passed on to ffmpeg), it is printed before
  // the settings are read (`ffjobs run --help` answered "set FFJOBS_URL" instead).
  if (command !== "ffmpeg" && command !== "ffprobe" && rest.some((a) => a === "-h" || a === "--help")) {
    process.stdout.write(`${command === "run" ? `${RUN_USAGE}\n\n${RUN_TEMPLATE_USAGE}` : USAGE}\n`);
    return 0;
  }
  const config = readCliConfig();
  const client = createClient({ baseUrl: config.url, apiKey: config.apiKey });
  const print = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
  switch (command) {
    case "ffmpeg":
    case "ffprobe": {
      const cmd = toRemoteCommand(command, rest);
      const asked = checksFromEnv();
      return runRemote(client, cmd, undefined, (ids) => withChecks(jobBody(cmd, ids) as CreateJobRequest, asked));
    }
    case "jobs": {
      const [sub, id] = rest;
      if (sub === "list") print(await client.listJobs({ limit: 20 }));
      else if (sub === "get" && id) print(await client.getJob(id));
      else if (sub === "wait" && id) print(await client.waitForJob(id));
      else if (sub === "cancel" && id) print(await client.cancelJob(id));
      else if (sub === "command" && id) process.stdout.write(await client.getJobCommand(id));
      else throw new Error(USAGE);
      return 0;
    }
    case "presets":
      for (const p of (await client.listPresets()).data)
        process.stdout.write(`${String(p.name).padEnd(16)} ${p.description}\n`);
      return 0;
    case "templates":
      // Names, defaults and descriptions come from the service: shown as text, never as terminal controls.
      for (const t of (await client.listTemplates({ limit: 100 })).data) {
        const vars = Object.entries(t.variables).map(
          ([k, v]) => `${k}:${v.type}${v.default === undefined ? "" : `=${v.default}`}`,
        );
        const line = `${t.name.padEnd(24)} v${t.version}  ${vars.join(" ")}${t.description ? `  ${t.description}` : ""}`;
        process.stdout.write(`${printableText(line)}\n`);
      }
      return 0;
    case "run":
      return rest[0] === "--template" ? runTemplate(client, rest.slice(1)) : runPreset(client, rest);
    default:
      throw new Error(`ffjobs: unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof FfjobsError) {
      process.stderr.write(`ffjobs: ${err.message}\n`);
      for (const d of err.details ?? []) process.stderr.write(`  at ${d.path.join(".") || "(body)"}: ${d.message}\n`);
    } else process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
