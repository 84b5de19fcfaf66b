import type { z } from "zod";
import type { CreateJobRequest, jobInputSchema, outputDestinationSchema } from "../../api/schemas/job-request.ts";
import { contentTypeFor } from "../../storage/content-types.ts";
import { arrayInputName } from "./placeholders.ts";
import type { OnFailedCheck, OutputChecks } from "../checks/output-checks.ts";

export type JobInput = z.infer<typeof jobInputSchema>;
/** Where the runner sends an output instead of the service's storage (the user's presigned PUT URL, or an S3 multipart upload's). */
export type OutputDestination = z.infer<typeof outputDestinationSchema>;
export type OutputDeclaration = {
  fileName: string;
  contentType: string;
  kind?: "directory";
  destination?: OutputDestination;
  /** As declared (or by its preset); absent: the default (src/jobs/checks/default-checks.ts). */
  checks?: OutputChecks;
};
export type Binary = "ffmpeg" | "ffprobe";
export type JobStep = { binary: Binary; args: string[] };

/** A validated job request in one shape, whichever of `input` / `inputs` the client used. */
export type JobSpec = {
  binary: Binary;
  /** The command of a one-command job; empty when the job has `steps`. */
  args: string[];
  /** Multi-step jobs: the commands, run in order in one workspace. */
  steps?: JobStep[];
  /** Multi-step jobs: work files (name → file name) the steps share; never stored. */
  scratch?: Record<string, string>;
  inputs: Record<string, JobInput>;
  outputs: Record<string, OutputDeclaration>;
  webhookUrl: string | null;
  /** The client's labels (string → string). */
  metadata?: Record<string, string>;
  /** Jobs that must complete before this one starts (ordering without data; job chains). */
  dependsOn?: string[];
  /** The job's own time limit, when it asked for one below the operator's. */
  timeoutSeconds?: number;
  /** A split encode: segments of this length, at most this many at once (src/jobs/split/). */
  parallel?: { segmentSeconds: number; maxWorkers: number };
  /** "report": outputs that miss a check are published with their failures listed. */
  onFailedCheck?: OnFailedCheck;
  /** The API origin the job was created at: directory-output URLs in its webhooks point there. */
  apiOrigin?: string;
  /** Preset jobs: which recipe, with which parameters (args holds its expansion). */
  mode?: "raw" | "preset";
  preset?: string;
  params?: Record<string, unknown>;
  /** A job made from a template: which one, which version (what it ran is the rest of the spec). */
  template?: { name: string; version: number };
};

export type RequestIssue = { path: string[]; message: string };

/** Every job as a list of commands: a one-command job is a single step. */
export function jobSteps(spec: Pick<JobSpec, "binary" | "args" | "steps">): JobStep[] {
  return spec.steps ?? [{ binary: spec.binary, args: spec.args }];
}

export function toJobSpec(req: CreateJobRequest): JobSpec {
  const inputs: Record<string, JobInput> = req.input
    ? Object.fromEntries(req.input.map((input, i) => [arrayInputName(i), input]))
    : { ...(req.inputs ?? {}) };
  const outputs = Object.fromEntries(
    Object.entries(req.outputs ?? {}).map(([name, o]) => [
      name,
      {
        fileName: o.fileName,
        contentType: o.contentType ?? contentTypeFor(o.fileName),
        ...(o.kind === "directory" ? { kind: "directory" as const } : {}),
        ...(o.destination ? { destination: o.destination } : {}),
        ...(o.checks ? { checks: o.checks } : {}),
      },
    ]),
  );
  const multi = req.steps
    ? {
        steps: req.steps.map((s) => ({ binary: s.binary ?? req.binary, args: [...s.ffmpegArgs] })),
        scratch: { ...(req.scratch ?? {}) },
      }
    : req.scratch
      ? { scratch: { ...req.scratch } }
      : {};
  return {
    binary: req.binary,
    args: req.steps ? [] : [...(req.ffmpegArgs ?? [])],
    ...multi,
    inputs,
    outputs,
    webhookUrl: req.webhookUrl ?? null,
    ...(req.onFailedCheck ? { onFailedCheck: req.onFailedCheck } : {}),
  };
}

/** A job's time limit: its own `timeoutSeconds` if it gave one, else the operator's JOB_TIMEOUT_SECONDS. */
export function jobTimeoutMs(spec: Pick<JobSpec, "timeoutSeconds">, operatorMaxMs: number): number {
  return spec.timeoutSeconds ? Math.min(spec.timeoutSeconds * 1000, operatorMaxMs) : operatorMaxMs;
}

/** A JOB_TIMEOUT's message, naming the job's own limit (a split job's task runs with what was left of it). */
export function timedOutMessage(timeoutMs: number): string {
  return `The job ran past its ${Math.round(timeoutMs / 1000)} s limit and was stopped`;
}
