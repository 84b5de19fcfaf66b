import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PresetJobRequest } from "../../src/api/schemas/presets.ts";
import { toJobSpec } from "../../src/jobs/request/job-request.ts";
import { expandPresetJob, presetForRunner } from "../../src/presets/expand-preset.ts";
import type { RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { jobRequest } from "./runner-api.ts";
import type { useRunnerHarness } from "./runner-harness.ts";

/**
 * A preset job run on the harness's real runner as the Worker would send it: expanded and checked by the
 * Worker's code, its inputs URLs on the media server (`given`: by input name, or a list for `input`), its
 * outputs stored on the PUT receiver and written out to local files (a directory output as `name/path`).
 * `withChecks`: the outputs carry the preset's checks, as a real job's do; `outputs` renames output files
 * (by output name); `timeoutMs` is the job's time limit (2 minutes by default).
 */
export async function runPresetJob(
  harness: ReturnType<typeof useRunnerHarness>,
  preset: string,
  params: Record<string, unknown>,
  given: Record<string, string> | string[],
  options: { withChecks?: boolean; outputs?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ outcome: RunnerOutcome; files: Map<string, string> }> {
  const { withChecks = false, timeoutMs = 120_000 } = options;
  const { h, input } = harness;
  const url = (f: string) => ({ type: "url" as const, url: `${h.media.url}/${f}` });
  const body = {
    mode: "preset",
    preset,
    params,
    ...(options.outputs
      ? { outputs: Object.fromEntries(Object.entries(options.outputs).map(([n, fileName]) => [n, { fileName }])) }
      : {}),
    ...(Array.isArray(given)
      ? { input: given.map(url) }
      : { inputs: Object.fromEntries(Object.entries(given).map(([n, f]) => [n, url(f)])) }),
  } as PresetJobRequest;
  const expanded = expandPresetJob(body);
  if ("issues" in expanded) throw new Error(JSON.stringify(expanded.issues));
  const spec = toJobSpec(expanded.request);
  const fileOf = (name: string) => (Array.isArray(given) ? given[Number(name.slice(5))] : given[name]);
  const prefix = `/${crypto.randomUUID()}`;
  const req = jobRequest({
    binary: spec.binary,
    args: spec.args,
    timeoutMs,
    ...presetForRunner({ mode: "preset", preset, params: expanded.params, inputs: spec.inputs }),
    inputs: Object.keys(spec.inputs).map((name) => input(name, fileOf(name))),
    outputs: Object.entries(spec.outputs).map(([name, o]) => ({
      name,
      fileName: o.fileName,
      contentType: o.contentType,
      uploadUrl: `${h.storage.url}${prefix}/${name}${o.kind === "directory" ? "/" : ""}`,
      ...(o.kind === "directory" ? { kind: "directory" as const, uploadToken: "tok", maxFiles: 1000 } : {}),
      ...(withChecks && o.checks ? { checks: o.checks } : {}),
    })),
  });
  await h.api.submit(req);
  const outcome = (await h.api.waitFor(req.jobId, (s) => s.state === "finished", 150_000)).outcome!;
  const local = join(tmpdir(), "ffjobs-preset-jobs", req.jobId);
  const files = new Map<string, string>();
  for (const [key, v] of h.storage.received) {
    if (!key.startsWith(`${prefix}/`)) continue;
    const rel = key.slice(prefix.length + 1);
    mkdirSync(dirname(join(local, rel)), { recursive: true });
    writeFileSync(join(local, rel), v.body);
    files.set(rel, join(local, rel));
  }
  return { outcome, files };
}
