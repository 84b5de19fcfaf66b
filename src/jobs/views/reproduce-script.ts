import type { RunnerInput } from "../../runner/runner-protocol.ts";
import { jobLayout, visiblePaths } from "../runner-request/job-paths.ts";
import { jobSteps, type JobSpec } from "../request/job-request.ts";
import { resolvePlaceholders, timePlaceholder } from "../request/placeholders.ts";

export type ReproducedJob = { id: string; status: string; createdAt: string; plannedArgs: string[] | null };

/** One shell word, whatever it holds: single quotes, a quote inside written as '\''. */
export const shellWord = (s: string): string =>
  /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * `GET /v1/jobs/{id}/command`: a POSIX shell script that runs a job again with the ffmpeg on the
 * user's machine, in the folder it is run from: the inputs fetched with curl, each once (URL inputs from their
 * URLs, uploads from download links valid until `linksExpireAt`), each step's command with its
 * placeholders resolved to `in/`, `out/` and `work/` as the runner lays them out (outputs keep the
 * job's names), a `{{input@P%}}` worked out from the input's duration as the runner does. Left out:
 * the service's own options (progress reporting, the output size bound, the input protocol and demuxer
 * allowlists), which limit a job on shared machines and change nothing in what it makes.
 */
export function reproduceScript(
  job: ReproducedJob,
  spec: JobSpec,
  inputs: RunnerInput[],
  linksExpireAt: string,
): string {
  const outputs = Object.entries(spec.outputs).map(([name, o]) => ({ name, fileName: o.fileName, kind: o.kind }));
  const scratch = Object.entries(spec.scratch ?? {}).map(([name, fileName]) => ({ name, fileName }));
  const layout = jobLayout(inputs, outputs, scratch);
  const pathOf = visiblePaths(layout, ".");
  const fetched = new Set(inputs.map((i) => i.name));
  const missing = Object.keys(spec.inputs).filter((name) => !fetched.has(name));
  const planned = spec.mode === "preset" && job.plannedArgs ? { ...spec, args: job.plannedArgs } : spec;
  const header = [
    "#!/bin/sh",
    `# ffjobs job ${job.id} (created ${job.createdAt}, ${job.status}), to run again with a local ffmpeg.`,
    ...(spec.mode === "preset"
      ? [
          `# Preset ${spec.preset}: ${job.plannedArgs ? "the command the runner planned for these inputs and ran" : "its command before the runner adapted it to the inputs (the job has not been planned yet)"}.`,
        ]
      : []),
    "# The service's own options (progress, size bounds, input allowlists) are left out: they change nothing in what it makes.",
    `# Download links in this script are valid until ${linksExpireAt}.`,
    "set -eu",
  ];
  if (missing.length) {
    const gone = missing.map((name) => `input "${name}"`).join(", ");
    return `${[...header, `echo ${shellWord(`ffjobs: ${gone} was an upload that no longer exists; this job cannot be run again`)} >&2`, "exit 1"].join("\n")}\n`;
  }
  const lines = [
    ...header,
    `mkdir -p in out work${[...layout.directories.keys()].map((name) => ` ${shellWord(pathOf(name)!.replace(/\/[^/]*$/, ""))}`).join("")}`,
    // The seconds of {{input@P%}}, as the runner works them out: floor(duration × P × 10) / 1000.
    ...(jobSteps(planned).some((s) => s.args.some((a) => timePlaceholder(a)))
      ? [
          'at_percent() { ffprobe -v error -show_entries format=duration -of csv=p=0 "$1" | awk -v p="$2" \'{ printf "%.3f", int($1 * p * 10) / 1000 }\'; }',
        ]
      : []),
    // -g: curl reads [1-4] and {a,b} in a URL as globs, one request per match; a URL is fetched once, as the runner does.
    ...inputs.map(
      (i) =>
        `curl -fsSLg --proto =http,https --proto-redir =http,https -o ${shellWord(pathOf(i.name)!)} ${shellWord(i.url)}`,
    ),
    ...jobSteps(planned).map((step) => {
      const argv = resolvePlaceholders(step.args, pathOf).map((arg) => {
        const time = timePlaceholder(arg);
        return time ? `"$(at_percent ${shellWord(pathOf(time.name)!)} ${time.percent})"` : shellWord(arg);
      });
      return [
        step.binary,
        ...(step.binary === "ffmpeg" ? ["-hide_banner", "-nostdin", "-y"] : ["-hide_banner"]),
        ...argv,
      ].join(" ");
    }),
    ...outputs.map((o) => `echo ${shellWord(`output ${o.name}: ${pathOf(o.name)}`)}`),
  ];
  return `${lines.join("\n")}\n`;
}
