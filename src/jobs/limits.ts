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
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024 * 1024;
export const UPLOAD_URL_TTL_SECONDS = 3600;
export const DOWNLOAD_URL_TTL_SECONDS = 3600;
export const RUNNER_IO_URL_TTL_SECONDS = 6 * 3600;
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
