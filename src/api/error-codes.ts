/**
 * The one registry of error codes: API errors (with their HTTP status) and job errorCodes.
 * docs/errors.md lists the same codes; test/unit/error-codes-doc.test.ts keeps the two in step.
 */
export const API_ERRORS = {
  INVALID_REQUEST: { status: 400, description: "The body, query or path is malformed; `details` says where." },
  UNAUTHORIZED: { status: 401, description: "Missing, malformed, unknown or revoked API key." },
  FORBIDDEN: {
    status: 403,
    description:
      "The key's account may not do this: the operator's routes (`/v1/admin/...`) need an operator account's key.",
  },
  NOT_FOUND: { status: 404, description: "No such resource for this account (another account's ids answer the same)." },
  JOB_NOT_FINISHED: {
    status: 409,
    description: "The job's result was asked for, or its deletion, before it reached a terminal state.",
  },
  JOB_ALREADY_FINISHED: {
    status: 409,
    description: "The job is already in a terminal state, so it cannot be canceled.",
  },
  FILE_IN_USE: {
    status: 409,
    description: "The file is an input of a job that has not finished; it cannot be deleted yet.",
  },
  UPLOAD_NOT_IN_PROGRESS: {
    status: 409,
    description:
      "The file is not a multipart upload in progress (a single-PUT upload, or one already completed or deleted).",
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    description: "The Idempotency-Key was already used with a different request body.",
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    description: "A request with this Idempotency-Key is still running (or just failed); retry shortly.",
  },
  TEMPLATE_EXISTS: {
    status: 409,
    description: "A template with this name already exists: `PUT /v1/templates/{name}` adds a version to it.",
  },
  TEMPLATE_LIMIT_REACHED: {
    status: 409,
    description: "The account already keeps the most templates it may (200); delete one first.",
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: "The request body is over the limit (1 MiB)." },
  RATE_LIMITED: { status: 429, description: "Too many requests for this API key; retry after `Retry-After` seconds." },
  RUNNER_UNAVAILABLE: {
    status: 503,
    description:
      "No runner could answer (GET /v1/capabilities, POST /v1/admin/platform-report); retry after `Retry-After` seconds.",
  },
  INTERNAL: { status: 500, description: "Unexpected server error; no internals are disclosed." },
} as const satisfies Record<string, { status: number; description: string }>;

export type ApiErrorCode = keyof typeof API_ERRORS;

export const JOB_ERRORS = {
  INPUT_FETCH_FAILED: "An input could not be fetched (HTTP error, refused address, timeout, too large).",
  INPUT_JOB_FAILED:
    "An input was another job's output, and that job failed, was canceled or deleted instead of completing.",
  DEPENDENCY_FAILED: "A job named in `dependsOn` failed, was canceled or deleted instead of completing.",
  INPUT_CHANGED: "An input's origin changed the file while the job read it (its size, ETag or Last-Modified moved).",
  INPUT_DURATION_UNKNOWN:
    "A time given as a percentage of an input (`{{video@50%}}`) could not be worked out: the input has no known duration.",
  INPUT_UNREADABLE: "A preset job's input is not media ffprobe can read, so the preset cannot plan its command.",
  INPUT_HAS_NO_VIDEO: "The preset makes pictures and an input has no video stream (cover art is not one).",
  INPUT_HAS_NO_AUDIO: "The preset works on sound and an input has no audio stream.",
  INPUT_HAS_NO_SUBTITLES: "The preset works on a subtitle track and the input has none (or not the one asked for).",
  SUBTITLES_NOT_TEXT:
    "Bitmap subtitles (PGS, DVB, DVD) cannot become text (WebVTT, MP4's timed text): burn them in with burn-subtitles, or keep them in .mkv.",
  INPUT_SILENT:
    "The preset normalises loudness and the input's audio measured silent (below EBU R128's −70 LUFS gate).",
  INPUT_COLOUR_UNSUPPORTED:
    "The preset would convert an input's colour and cannot: Dolby Vision without an HDR10 or HLG base layer (profile 5).",
  SPLIT_PLAN_FAILED:
    "A split encode could not be planned from what its input's probe read; it fails once, not charged.",
  PROCESS_FAILED: "ffmpeg/ffprobe exited with a non-zero code; see stderrTail in the result.",
  OUTPUT_MISSING: "The command finished but did not write a declared output.",
  OUTPUT_EMPTY: "The command succeeded but a declared output is an empty file.",
  OUTPUT_CHECK_FAILED:
    "An output missed one of its checks (`outputs.<name>.checks`, or its preset's): the job's `checks` lists what was measured beside what was wanted; no output is published.",
  OUTPUT_UPLOAD_FAILED: "A declared output could not be stored.",
  JOB_TIMEOUT: "The job ran past JOB_TIMEOUT_SECONDS and was stopped.",
  JOB_STALLED: "ffmpeg stopped making progress (no new output for a bounded while) and was stopped.",
  LIMIT_EXCEEDED: "The job hit a resource limit (output size, job-folder quota, CPU time) and was stopped.",
  ARGUMENTS_REFUSED:
    "The runner's own argument check refused the command (the API normally refuses it first, with a 400).",
  SANDBOX_UNAVAILABLE: "The runner could not start its sandbox and refuses to run jobs without it.",
  RUNNER_UNAVAILABLE:
    "No runner could be reached to start the job, in any of its 3 attempts (or its dispatch failed every retry).",
  RUNNER_LOST: "The runner stopped answering about the job (restart, eviction, crash), on its last attempt.",
  CANCELED: "The job was canceled by request.",
  INSUFFICIENT_CREDITS: "The account's credit balance was exhausted; the job was rejected before running.",
  TOO_MANY_ACTIVE_JOBS:
    "The account already had MAX_ACTIVE_JOBS_PER_ACCOUNT jobs queued or running; the job was rejected.",
  INTERNAL: "Unexpected failure inside the service.",
} as const satisfies Record<string, string>;

export type JobErrorCode = keyof typeof JOB_ERRORS;
