import type { Services } from "../../services.ts";
import type { RunnerInput, RunnerJobRequest } from "../../runner/runner-protocol.ts";
import { notifyUrlFor } from "../../runner/runner-notify.ts";
import { objectKeys } from "../../storage/presigner.ts";
import { RUNNER_IO_URL_TTL_SECONDS } from "../request/limits.ts";
import { jobSpecOf } from "../store/job-store.ts";
import { runnerInputs } from "../runner-request/runner-inputs.ts";
import { runnerOutputs } from "../runner-request/runner-outputs.ts";
import { runnerLeaseMs } from "../lifecycle/retry-policy.ts";
import { buildRunnerRequest } from "../runner-request/runner-request.ts";
import { splitShape } from "./split-eligibility.ts";
import { audioArgs, joinArgs, segmentArgs, type SplitEncoding } from "./split-plan.ts";
import { seamWindowsOf, type SeamRequest } from "./seam-quality.ts";
import { segmentsToJoin, AUDIO_TASK } from "./split-tasks.ts";

/** A frame lost at a seam of a constant-rate output leaves an interval of two frames: more than 1.5 is one. */
const JOIN_CONTINUITY = { maxGapFrames: 1.5 };
import { listTasks } from "./task-store.ts";
import type { JobRow } from "../store/job-row.ts";
import type { SplitTaskParams, JobTask } from "./split-task.ts";

/** A segment's work file, and the audio's (its muxer's own extension, so the join reads it as such). */
const workFile = (task: string, muxer: string) =>
  task === AUDIO_TASK ? `${task}.${muxer === "matroska" ? "mka" : "m4a"}` : `${task}.ts`;

/**
 * The runner request of one task of a split job, run under its own runner id with what is left of
 * the job's time: a segment or the audio reads the job's input and writes a work file; the join reads
 * the work files and writes the job's output; "whole" is the job's own request.
 */
export async function taskRequest(
  s: Services,
  job: JobRow,
  task: JobTask,
  runnerId: string,
  remainingMs: number,
): Promise<RunnerJobRequest> {
  const spec = jobSpecOf(job);
  const common = {
    jobId: runnerId,
    task: { kind: task.params.kind, name: task.name },
    timeoutMs: remainingMs,
    allowedPrivateHosts: s.config.allowedPrivateHosts,
    createdAt: job.created_at,
    leaseMs: runnerLeaseMs(s.config.runnerPollIntervalMs),
    notifyUrl: notifyUrlFor(s.config, job.id),
    // A tick per progress report of every task would cost the job's coordinator (and, on one machine, the
    // encoders' own CPU): a segment's frames are read at the coordinator's polls instead (split-progress.ts).
    notifyProgress: task.params.kind === "whole",
  } as const;
  if (task.params.kind === "whole") return { ...(await buildRunnerRequest(s, job)), ...common };
  const shape = splitShape({ ...spec, args: task.params.plannedArgs ?? spec.args });
  if (!("shape" in shape)) throw new Error(`job ${job.id} is no longer a split encode`);
  const { encoding, input, output } = shape.shape;
  const params: SplitTaskParams = task.params;
  const work = (name: string) => objectKeys.work(job.id, workFile(name, encoding.muxer));
  const put = async (name: string) => (await s.presigner.presign("PUT", work(name), RUNNER_IO_URL_TTL_SECONDS)).url;
  const get = async (name: string): Promise<RunnerInput> => ({
    name: "",
    url: (await s.presigner.presign("GET", work(name), RUNNER_IO_URL_TTL_SECONDS)).url,
    fileName: workFile(name, encoding.muxer),
    trusted: true,
  });
  if (params.kind === "segment" || params.kind === "audio") {
    const inputs = await runnerInputs(s, spec, job.account_id);
    // Named apart from the input, whatever the client called it.
    const out = input === "work" ? "work_file" : "work";
    const seams = params.kind === "segment" ? seamsOf(params, encoding, out, [input, out]) : null;
    const args =
      params.kind === "segment"
        ? segmentArgs(params.segment, encoding, {
            input: `{{${input}}}`,
            output: `{{${out}}}`,
            formatStartSeconds: params.formatStartSeconds,
            exactTimestamps: params.exactTimestamps,
            constantRate: params.constantRate,
            ...(seams ? { seams: { output: `{{${seams.request.scratch}}}`, windows: seams.request.windows } } : {}),
          })
        : audioArgs(encoding, { input: `{{${input}}}`, output: `{{${out}}}`, subtitles: params.subtitles })!;
    const outputs = [
      {
        name: out,
        fileName: workFile(task.name, encoding.muxer),
        contentType: "application/octet-stream",
        uploadUrl: await put(task.name),
        // A segment that does not write the frames of its span fails the job: its join would be wrong.
        ...(params.kind === "segment" && params.frameCount ? { checks: { frameCount: params.frameCount } } : {}),
      },
    ];
    if (!seams) return { ...common, binary: "ffmpeg", args, inputs, outputs };
    return {
      ...common,
      task: { ...common.task, seams: seams.request },
      binary: "ffmpeg",
      args,
      scratch: [seams.scratch],
      inputs,
      outputs,
    };
  }
  // The join: the segments as part0, part1, … and the audio, under names apart from the output's.
  const name = (base: string) => (base === output ? `${base}_` : base);
  // The segments that encoded something, in order: one with no frame in its span has no work file.
  const joined = segmentsToJoin(await listTasks(s.db, job.id));
  const parts = await Promise.all(joined.map(async (t, i) => ({ ...(await get(t.name)), name: name(`part${i}`) })));
  const audio = params.audio ? [{ ...(await get(AUDIO_TASK)), name: name("audio") }] : [];
  const args = joinArgs(encoding, {
    segments: parts.map((p) => `{{${p.name}}}`),
    audio: audio.length ? `{{${audio[0].name}}}` : null,
    output: `{{${output}}}`,
    videoDelaySeconds: params.videoDelaySeconds,
    formatStartSeconds: params.formatStartSeconds,
  });
  // The join checks its own seams where one run's frames come at a constant rate (MP4, MOV): no frame
  // lost or doubled where two segments meet (each segment's frame count was checked by its own runner),
  // besides the output's own checks.
  const joinChecks = { continuity: JOIN_CONTINUITY };
  // Every stream starts where it started in the input, within a frame (an MKV output's too): the audio's
  // offset kept. An avSync the job declared itself stands.
  const offset =
    params.audioOffsetMs !== undefined && params.frameMs !== undefined
      ? { avSync: { startOffsetMs: params.audioOffsetMs, maxStartDiffMs: params.frameMs + 1 } }
      : {};
  const outputs = (await runnerOutputs(s, job, spec)).map((o) =>
    encoding.muxer === "matroska"
      ? { ...o, checks: { ...offset, ...o.checks } }
      : { ...o, checks: { ...joinChecks, ...offset, ...o.checks, continuity: JOIN_CONTINUITY } },
  );
  const onFailedCheck = spec.onFailedCheck ? { onFailedCheck: spec.onFailedCheck } : {};
  return { ...common, binary: "ffmpeg", args, inputs: [...parts, ...audio], outputs, ...onFailedCheck };
}

/**
 * A segment's seams report (seam-quality.ts), where the plan knows its frame count exactly (a constant
 * grid) and the job's filters are one plain chain the command can split after; its edge frames go to a
 * scratch file named apart from the task's other files.
 */
function seamsOf(
  params: Extract<SplitTaskParams, { kind: "segment" }>,
  encoding: SplitEncoding,
  output: string,
  taken: string[],
): { request: SeamRequest; scratch: { name: string; fileName: string } } | null {
  // A label, a second chain, a quote or an escape in the job's filters could take in what follows them.
  if (!params.constantRate || /[[\];'\\]/.test(encoding.videoFilters ?? "")) return null;
  const windows = seamWindowsOf(params.segment, params.expectedFrames);
  if (!windows) return null;
  const name = taken.includes("edges") ? "edges_file" : "edges";
  return { request: { output, scratch: name, windows }, scratch: { name, fileName: "edges.mkv" } };
}
