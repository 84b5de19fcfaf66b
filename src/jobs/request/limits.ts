/** Request-shape limits. Documented in docs/api.md; published later at GET /v1/policy. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
export const MAX_ARGS = 256;
export const MAX_ARG_LENGTH_CHARS = 4096;
export const MAX_INPUTS = 16;
export const MAX_OUTPUTS = 16;
/** A job's `metadata`: at most this many entries, keys and values this long. */
export const MAX_METADATA_ENTRIES = 32;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 512;
/** Commands in one multi-step job (`steps`). */
export const MAX_STEPS = 8;
export const MAX_URL_LENGTH_CHARS = 2048;
export const MAX_FILE_NAME_CHARS = 255;
/** The largest upload: inputs are read by range, so what a user sends, not the runner's disk, bounds it. */
export const MAX_UPLOAD_BYTES = 64 * 1024 ** 3;
/** R2 takes at most this in one PUT; larger files are uploaded in parts (S3 multipart). */
export const MAX_SINGLE_PUT_BYTES = 5 * 1024 ** 3;
/** S3 multipart rules R2 keeps: parts of 5 MiB to 5 GiB (the last may be smaller), at most 10,000 of them. */
export const MIN_PART_BYTES = 5 * 1024 ** 2;
export const MAX_PART_BYTES = 5 * 1024 ** 3;
export const MAX_PARTS = 10_000;
/** Parts are 16 MiB unless the file needs larger ones to stay within MAX_PARTS (or the client asks). */
export const DEFAULT_PART_BYTES = 16 * 1024 ** 2;
/** Part URLs handed out per request (`POST /v1/files/{id}/parts`). */
export const MAX_PART_URLS_PER_REQUEST = 100;
export const UPLOAD_URL_TTL_SECONDS = 3600;
export const DOWNLOAD_URL_TTL_SECONDS = 3600;
export const RUNNER_IO_URL_TTL_SECONDS = 6 * 3600;
/** A job list (`GET /v1/jobs`) cuts each job's command line and error message to this many characters (code points), the last `…`. */
export const COMMAND_PREVIEW_CHARS = 200;
export const ERROR_PREVIEW_CHARS = 1000;
export const MAX_STDOUT_BYTES = 256 * 1024;
export const MAX_STDERR_TAIL_BYTES = 16 * 1024;
/** Longest a client may hold a request waiting for a job (`?wait=`, `Prefer: wait=`). */
export const MAX_WAIT_SECONDS = 60;
/** The runner's largest output file unless RUNNER_MAX_OUTPUT_BYTES says otherwise (and what a dry run shows as -fs). */
export const DEFAULT_MAX_OUTPUT_BYTES = 2 * 1024 ** 3;
/** An input the runner must copy whole (no ranges at its origin, a file a filter opens) lands on the disk: at most this. */
export const DEFAULT_MAX_COPIED_INPUT_BYTES = 2 * 1024 ** 3;
/** How long a dry run's probe may spend fetching an input. */
export const DRY_RUN_PROBE_TIMEOUT_MS = 30_000;
/** A split encode (`parallel`): segments of this many seconds at least and at most (shorter ones lose the encoder's look-ahead at every join; the last segment runs to the end). */
export const MIN_SEGMENT_SECONDS = 5;
export const MAX_SEGMENT_SECONDS = 3600;
/** A split encode runs at most this many segments at once (each on a container of its own). */
export const MAX_SPLIT_WORKERS = 64;
