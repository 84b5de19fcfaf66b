import { MAX_STEPS } from "../jobs/request/limits.ts";
import { MAX_SCENE_SCAN_CUTS, SCENE_WINDOW_MAX_SECONDS } from "../jobs/split/scene-cuts.ts";
import type { SeamRequest } from "../jobs/split/seam-quality.ts";
import type { RunnerInput, RunnerJobRequest, RunnerOutput, RunnerProbeRequest } from "./runner-protocol.ts";

/*
 * The runner's checks of what its coordinator sends, beside the types they check (runner-protocol.ts).
 * A check is listed for every field of a request type, optional ones included: a field added to a type
 * without a check here fails the type-check. No dependencies, so the container image runs it as it is.
 */

/** One check per field of T; an optional field's check must accept `undefined`. */
type FieldChecks<T> = { [K in keyof Required<T>]: (value: unknown) => boolean };

function hasFields<T>(value: unknown, checks: FieldChecks<T>): value is T {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return Object.entries<(v: unknown) => boolean>(checks).every(([field, check]) => check(record[field]));
}

const NAME = /^[A-Za-z0-9_]{1,64}$/;
const RUNNER_ID = /^[0-9a-f-]{36}$/;

const optional = (check: (v: unknown) => boolean) => (v: unknown) => v === undefined || check(v);
const isString = (v: unknown) => typeof v === "string";
const isStrings = (v: unknown) => Array.isArray(v) && v.every(isString);
const isBinary = (v: unknown) => v === "ffmpeg" || v === "ffprobe";
const isPositive = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v > 0;
const isSeconds = (v: unknown) => typeof v === "number" && Number.isFinite(v);
/** A segment's seams: two names (declared ones: the runner checks them against the request), which edges. */
const isSeamRequest = (v: unknown) => {
  if (!named({ name: (v as SeamRequest | null)?.output }) || !named({ name: (v as SeamRequest).scratch })) return false;
  const windows = (v as SeamRequest).windows;
  return (
    isObject(windows) &&
    typeof windows.head === "boolean" &&
    (windows.tailFrom === null ||
      (Number.isInteger(windows.tailFrom) && windows.tailFrom >= 0 && windows.tailFrom <= 1e9)) &&
    (windows.head || windows.tailFrom !== null)
  );
};
const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
const listOf = (check: (v: unknown) => boolean) => (v: unknown) => Array.isArray(v) && v.every(check);
const named = (v: unknown) =>
  isObject(v) && typeof (v as { name?: unknown }).name === "string" && NAME.test((v as { name: string }).name);

/** What the runner reads of an input or output here; the rest of each is read where it is used. */
const isInput = (v: unknown) => named(v) && isString((v as RunnerInput).url);
const isOutput = (v: unknown) => named(v) && isString((v as RunnerOutput).uploadUrl);

const JOB_REQUEST_CHECKS: FieldChecks<RunnerJobRequest> = {
  jobId: (v) => isString(v) && RUNNER_ID.test(v as string),
  binary: isBinary,
  args: isStrings,
  preset: optional(
    (v) =>
      isObject(v) &&
      isString((v as { name?: unknown }).name) &&
      isObject((v as { params?: unknown }).params) &&
      isStrings((v as { inputNames?: unknown }).inputNames),
  ),
  task: optional(
    (v) =>
      isObject(v) &&
      ["segment", "audio", "join", "whole"].includes((v as { kind?: string }).kind ?? "") &&
      isString((v as { name?: unknown }).name) &&
      optional(isSeamRequest)((v as { seams?: unknown }).seams),
  ),
  steps: optional(
    (v) =>
      Array.isArray(v) &&
      v.length <= MAX_STEPS &&
      v.every((s) => isObject(s) && isBinary(s.binary) && isStrings(s.args)),
  ),
  scratch: optional(listOf((f) => named(f) && isString((f as { fileName?: unknown }).fileName))),
  inputs: listOf(isInput),
  outputs: listOf(isOutput),
  onFailedCheck: optional((v) => v === "fail" || v === "report"),
  timeoutMs: isPositive,
  allowedPrivateHosts: isStrings,
  createdAt: isString,
  leaseMs: isPositive,
  notifyUrl: (v) => v === null || isString(v),
  notifyProgress: optional((v) => typeof v === "boolean"),
};

const PROBE_REQUEST_CHECKS: FieldChecks<RunnerProbeRequest> = {
  probeId: (v) => isString(v) && RUNNER_ID.test(v as string),
  inputs: listOf(isInput),
  allowedPrivateHosts: isStrings,
  timeoutMs: isPositive,
  measureVideoEnd: optional((v) => typeof v === "boolean"),
  sceneScan: optional(
    (v) =>
      isObject(v) &&
      isSeconds((v as { formatStartSeconds?: unknown }).formatStartSeconds) &&
      isPositive((v as { windowSeconds?: unknown }).windowSeconds) &&
      optional((b) => isPositive(b) && (b as number) <= 30_000)((v as { budgetMs?: unknown }).budgetMs) &&
      (v as { windowSeconds: number }).windowSeconds <= SCENE_WINDOW_MAX_SECONDS &&
      Array.isArray((v as { cutsSeconds?: unknown }).cutsSeconds) &&
      (v as { cutsSeconds: unknown[] }).cutsSeconds.length <= MAX_SCENE_SCAN_CUTS &&
      (v as { cutsSeconds: unknown[] }).cutsSeconds.every(isSeconds),
  ),
};

export const isRunnerJobRequest = (v: unknown): v is RunnerJobRequest => hasFields(v, JOB_REQUEST_CHECKS);
export const isRunnerProbeRequest = (v: unknown): v is RunnerProbeRequest => hasFields(v, PROBE_REQUEST_CHECKS);
