/*
 * Which tests run when. vitest.config.ts says where a test runs (its project: Node, workerd, a local stack,
 * real containers); this file says when: `npm test`, the loop a contributor runs before every commit, or
 * `npm run test:slow`, which adds what is slow by nature. CI runs both, each test once. scripts/test.ts runs
 * what is declared here; test/README.md explains it.
 */

/**
 * Files of the fast projects that only `npm run test:slow` runs, each with why it is slow: a sweep over a
 * table or a matrix (each row the same behaviour again), a test that waits out real time limits, one at
 * production's full scale, or one long by design. A renamed or moved file must be renamed here too
 * (test/unit/suites.test.ts fails until it is; otherwise it would quietly join the fast loop).
 */
export const SLOW_FILES: Readonly<Record<string, string>> = {
  "test/runner/preset-matrix.test.ts":
    "every preset on every kind of media (FFJOBS_PRESET_MATRIX=full), about 3 minutes",
  "test/runner/command-corpus.test.ts": "a sweep: fifty realistic commands through the policy and the sandbox",
  "test/runner/filter-tables.test.ts": "a sweep: every option of every allowed filter against the installed ffmpeg",
  "test/runner/value-tables.test.ts": "a sweep: bitstream filters and flags against the installed ffmpeg",
  "test/runner/output-extensions.test.ts": "a sweep: every muxer's extensions against the installed ffmpeg",
  "test/runner/split-plan-ffmpeg.test.ts":
    "real encodes of a split job's segments and of the whole, compared frame by frame",
  "test/runner/stall-watch-ffmpeg.test.ts": "waits out the stall watch's idle and busy windows",
  "test/runner/hostile-destinations.test.ts": "waits out idle limits against destinations that trickle or stall",
  "test/runner/range-read-egress.test.ts":
    "full scale: what reading a multi-GiB input by range costs production's egress",
  "test/worker/job-list-memory.test.ts": "full scale: a page of a hundred jobs of the largest size the limits allow",
  "test/worker/container-pool.test.ts": "full scale: a warm pool of 500 busy instances",
  "test/worker/job-event-stream-hour.test.ts":
    "an event stream held through a compressed hour: 3,600 coordinator ticks",
  "test/worker/openapi-fuzz.test.ts": "a property-based sweep over every operation of the OpenAPI document",
};

/** One vitest invocation. */
export type TestRun = {
  /** What it covers, in the slow command's per-run summary. */
  name: string;
  /** The vitest projects (vitest.config.ts) it runs. */
  projects: readonly string[];
  /** Only the files these paths name or contain (vitest's filters); else every file of the projects. */
  files?: readonly string[];
  /** Files left out. */
  exclude?: readonly string[];
  /** Only the tests whose names match (vitest's -t). */
  testNamePattern?: string;
  env?: Readonly<Record<string, string>>;
  /** On real containers: the lab must be there under CI, else the container suite skips (lab/README.md). */
  containers?: boolean;
};

/**
 * `npm test`: both type-checks, the unit, runner and workers-runtime suites without the slow files, and
 * the end-to-end slice (test/slice/: one local stack, every interface once). At most 5 minutes on two cores.
 */
export const FAST_RUN: TestRun = {
  name: "unit, runner, worker and the end-to-end slice",
  projects: ["unit", "runner", "worker", "slice"],
  exclude: Object.keys(SLOW_FILES),
};

/** The container suite on real containers (`npm run test:containers`; arguments pass on to vitest). */
export const CONTAINER_RUN: TestRun = { name: "containers", projects: ["container"], containers: true };

/** `npm run test:slow`: everything `npm test` leaves out, each test once. */
export const SLOW_RUNS: readonly TestRun[] = [
  {
    name: "end to end, sweeps and long tests",
    projects: ["e2e", "runner", "worker"],
    files: ["test/e2e/", ...Object.keys(SLOW_FILES)],
    env: { FFJOBS_PRESET_MATRIX: "full" },
  },
  // Alone: its tests hold the coordinator to the time bounds docs/architecture.md states.
  { name: "faults", projects: ["faults"] },
  CONTAINER_RUN,
  // Again under Docker's user-namespace remapping, as rootless hosts run containers: the egress path,
  // bubblewrap, and the uid fallback with its attacks (lab/README.md says what starts there).
  {
    name: "containers under user-namespace remapping",
    projects: ["container"],
    files: ["test/container/container-path.test.ts"],
    testNamePattern: "reads URL inputs by host name|inside bubblewrap|falls back to a uid",
    env: { FFJOBS_LAB_USERNS: "1" },
    containers: true,
  },
];
