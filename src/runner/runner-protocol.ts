/**
 * The coordinator ↔ runner contract. The runner is the same HTTP server in the container image and
 * in local development; these types are shared by both sides (type-only imports: nothing here
 * exists at run time, so the container image needs no other file).
 */
import type { PlanReport } from "../presets/recipes/recipe.ts";
import type { JobErrorCode } from "../api/error-codes.ts";
import type { OutputMetadata } from "../jobs/views/output-metadata.ts";
import type { JobProgress } from "../jobs/views/job-progress.ts";
import type { SplitFacts } from "../jobs/split/split-facts.ts";
import type { CutScan, SceneScan } from "../jobs/split/scene-cuts.ts";
import type { SeamRequest, SegmentSeams } from "../jobs/split/seam-quality.ts";
import type { MediaFacts } from "../presets/media-facts.ts";
import type { CheckResult, OnFailedCheck, OutputChecks } from "../jobs/checks/output-checks.ts";

export type RunnerInput = {
  name: string;
  url: string;
  /** Only for its extension: the runner names the file itself. */
  fileName: string;
  /** Service-minted storage URLs are trusted; client URLs go through the address policy. */
  trusted: boolean;
};

export type RunnerOutput = {
  name: string;
  fileName: string;
  contentType: string;
  /** A file: its presigned PUT URL. A directory: the prefix each file is PUT under, with `uploadToken`. */
  uploadUrl: string;
  kind?: "directory";
  uploadToken?: string;
  /**
   * A file the service stores may instead be sent in parts while the command still writes it (the
   * Worker's multipart upload, src/storage/output-parts.ts: `<url>start`, `part-<n>`, `complete`,
   * `abort`, with `uploadToken`), each part but the last `partSizeBytes` long.
   */
  streamParts?: { url: string; partSizeBytes: number };
  /** A directory may hold at most this many files. */
  maxFiles?: number;
  /** What the output must be (src/jobs/checks/): measured after the command, before the job completes. */
  checks?: OutputChecks;
  /**
   * The user's own storage: `uploadUrl` is their presigned PUT URL, sent these headers, under the same
   * address policy as URL inputs; the runner reports the answer's ETag and the file's SHA-256. With
   * `parts`, an S3 multipart upload: each part PUT to its URL, then the list POSTed to `completeUrl`
   * (which is `uploadUrl`).
   */
  destination?: {
    headers: Record<string, string>;
    parts?: { urls: string[]; partSizeBytes: number; completeUrl: string };
  };
};

/** A directory output's file as sent to the user's destination. */
export type DeliveredFile = { path: string; size: number; sha256: string; etag: string | null };

export type RunnerStep = { binary: "ffmpeg" | "ffprobe"; args: string[] };

export type RunnerJobRequest = {
  jobId: string;
  binary: "ffmpeg" | "ffprobe";
  args: string[];
  /**
   * Preset jobs whose command depends on what the inputs are: the runner probes them and plans the
   * command again (src/presets/recipes/) before running; `args` is the plan for a typical input.
   * `inputNames` is the preset's own order of its inputs.
   */
  preset?: { name: string; params: Record<string, unknown>; inputNames: string[] };
  /**
   * A task of a split job (src/jobs/split/), whose command the service built: `jobId` is the task's
   * runner id. Only a join may read `concat:` of its inputs (its segments, byte for byte). `seams`: a
   * segment's edges to compare after its command (src/jobs/split/seam-quality.ts).
   */
  task?: { kind: "segment" | "audio" | "join" | "whole"; name: string; seams?: SeamRequest };
  /** Multi-step jobs: the commands, run in order (then `binary`/`args` are not run). */
  steps?: RunnerStep[];
  /** Work files the steps share (in the job's work folder); never stored. */
  scratch?: { name: string; fileName: string }[];
  inputs: RunnerInput[];
  outputs: RunnerOutput[];
  /** "report": an output that misses a check is published all the same, its failures listed. */
  onFailedCheck?: OnFailedCheck;
  timeoutMs: number;
  allowedPrivateHosts: string[];
  /** The job's creation time: waiting jobs get a slot oldest first. */
  createdAt: string;
  /** The runner cancels the job if its coordinator has not asked about it for this long (it is gone). */
  leaseMs: number;
  /**
   * The runner POSTs here (no body) when the job gets its slot, when it ends, and at most once a
   * second with progress, so the coordinator looks at once instead of at its next poll.
   */
  notifyUrl: string | null;
  /** false: notify on the slot and the end only, not on progress (a split job's segments: the coordinator reads theirs at its polls). */
  notifyProgress?: boolean;
};

export type RunnerProgress = JobProgress;

export type RunnerOutcome = {
  status: "completed" | "failed" | "canceled";
  exitCode: number | null;
  /** How long the binary itself ran; 0 when it never started. */
  runtimeMs: number;
  errorCode: JobErrorCode | null;
  errorMessage: string | null;
  stdout: string;
  stderrTail: string;
  /** A directory output's size is its files' total; `files` lists them and `mainFile` is the one its URL opens. */
  outputs: {
    name: string;
    size: number;
    metadata: OutputMetadata | null;
    files?: { path: string; size: number }[];
    mainFile?: string;
    /** Sent to the user's destination: its ETag and SHA-256 (a directory: its main file's, and each file's). */
    delivered?: { etag: string | null; sha256: string; files?: DeliveredFile[] };
    /** A file's SHA-256, as stored or sent. */
    sha256?: string;
    /** Its declared checks' results. */
    checks?: CheckResult[];
  }[];
  /** A job failed by its checks (OUTPUT_CHECK_FAILED): every output's results, since none is published. */
  checks?: Record<string, CheckResult[]>;
  /** Preset jobs: the arguments the runner planned from the inputs and ran (null before planning). */
  plannedArgs?: string[];
  /** Preset jobs: what the preset measured of its inputs and decided as it planned (a loudness report, say). */
  presetReport?: PlanReport | null;
  /** Bytes per input: given to the job's commands, and fetched from its origin (`copied`: downloaded whole first). */
  inputReads?: Record<string, { bytesRead: number; originBytes: number; copied: boolean }>;
  /** Multi-step jobs that did not complete: the index of the step that failed or was running. */
  failedStep?: number;
  /** A split's segment asked for its seams: its edges' per-frame SSIM (null when they could not be compared). */
  seams?: SegmentSeams | null;
  /** Where the time on the runner went (container/src/phase-clock.ts), and when it was done. */
  timings: RunnerTimings;
  finishedAt: string;
};

export type RunnerTimings = { fetchMs: number; runMs: number; storeMs: number };

export type RunnerJobState = "waiting" | "fetching" | "running" | "uploading" | "finished";

/**
 * A status asked for with `?until=…&waitMs=…`: held by the runner until the job has left the line
 * ("started") or has its outcome ("finished"), or `waitMs` passed, instead of answered at once. The
 * coordinator follows a job this way rather than waiting for the runner's notification, a hop
 * through the Worker, and then asking (src/jobs/lifecycle/follow-runner.ts).
 */
export type RunnerFollow = { until: "started" | "finished"; waitMs: number };
/** The longest a runner holds such an answer. */
export const MAX_FOLLOW_WAIT_MS = 15_000;

/** Whether the runner's status is what a follow waits for. */
export function followReached(status: RunnerJobStatus, until: RunnerFollow["until"]): boolean {
  return until === "started" ? status.state !== "waiting" : status.outcome !== null;
}

export type RunnerJobStatus = {
  jobId: string;
  state: RunnerJobState;
  /** When the job got a slot (left "waiting"): its deadline runs from here. */
  startedAt: string | null;
  progress: RunnerProgress | null;
  outcome: RunnerOutcome | null;
};

/** A dry run's look at a job's inputs (`POST /probe`): fetched and probed like a job's, nothing run. */
export type RunnerProbeRequest = {
  probeId: string;
  inputs: RunnerInput[];
  allowedPrivateHosts: string[];
  timeoutMs: number;
  /** A split's plan: also read where each input's video really ends (its last keyframe on), not only what its header claims. */
  measureVideoEnd?: boolean;
  /** A split's plan: also look for a change of scene around each planned cut (src/jobs/split/scene-cuts.ts). */
  sceneScan?: SceneScan;
};

export type RunnerProbeResult = {
  /**
   * `split`: what a split job's plan needs of the input (src/jobs/split/split-facts.ts); `media`: what a
   * preset plans its command from (src/presets/media-facts.ts), for a split preset job's plan.
   */
  inputs: Record<
    string,
    | {
        ok: true;
        metadata: OutputMetadata | null;
        durationSeconds: number | null;
        split?: SplitFacts | null;
        media?: MediaFacts | null;
        /** Per cut of the request's sceneScan: the change of scene and the keyframes found in its window (null: not scanned). */
        cutScans?: (CutScan | null)[];
      }
    | { ok: false; error: string }
  >;
};

/** What the runner's binaries can do (`GET /capabilities`), read from them. */
export type RunnerCapabilities = {
  ffmpeg: string;
  ffprobe: string;
  encoders: { name: string; type: "video" | "audio" | "subtitle"; description: string }[];
  decoders: { name: string; type: "video" | "audio" | "subtitle"; description: string }[];
  muxers: { name: string; description: string }[];
  demuxers: { name: string; description: string }[];
  filters: { name: string; io: string; description: string }[];
  /** How the runner isolates jobs on its host (container/src/isolation.ts). */
  sandbox: { mode: "namespaces" | "uid" | "off" | "unavailable"; description: string };
};

export const RUNNER_PORT = 8080;
