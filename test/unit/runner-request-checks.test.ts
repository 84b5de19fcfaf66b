import { describe, expect, it } from "vitest";
import { isRunnerJobRequest, isRunnerProbeRequest } from "../../src/runner/runner-request-checks.ts";
import type { RunnerJobRequest, RunnerProbeRequest } from "../../src/runner/runner-protocol.ts";

/** A job request with every field the type has, as a coordinator sends it. */
const fullJob: Required<RunnerJobRequest> = {
  jobId: "0b5c4bd2-3f0e-4a43-9d1e-6f8f3c1d2e4a",
  binary: "ffmpeg",
  args: ["-i", "{{in}}", "{{out}}"],
  preset: { name: "thumbnail", params: { width: 320 }, inputNames: ["in"] },
  task: {
    kind: "segment",
    name: "segment-0",
    seams: { output: "work", scratch: "edges", windows: { head: true, tailFrom: 142 } },
  },
  steps: [{ binary: "ffprobe", args: ["{{in}}"] }],
  scratch: [{ name: "pass", fileName: "pass.log" }],
  inputs: [{ name: "in", url: "https://media.example/a.mp4", fileName: "a.mp4", trusted: false }],
  outputs: [{ name: "out", fileName: "out.jpg", contentType: "image/jpeg", uploadUrl: "https://storage.example/put" }],
  onFailedCheck: "report",
  timeoutMs: 60_000,
  allowedPrivateHosts: [],
  createdAt: "2026-11-26T00:00:00.000Z",
  leaseMs: 30_000,
  notifyUrl: null,
  notifyProgress: true,
};
const OPTIONAL_JOB_FIELDS = ["preset", "task", "steps", "scratch", "onFailedCheck", "notifyProgress"];

const fullProbe: Required<RunnerProbeRequest> = {
  probeId: "0b5c4bd2-3f0e-4a43-9d1e-6f8f3c1d2e4a",
  inputs: [{ name: "in", url: "https://media.example/a.mp4", fileName: "a.mp4", trusted: false }],
  allowedPrivateHosts: ["127.0.0.1"],
  timeoutMs: 10_000,
  measureVideoEnd: true,
  sceneScan: { cutsSeconds: [5, 10], windowSeconds: 1.25, formatStartSeconds: 0, budgetMs: 1200 },
};

const without = (o: object, field: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== field));

describe("the runner's checks of a coordinator's requests", () => {
  it("take a job request with every field, and one with only the required ones", () => {
    expect(isRunnerJobRequest(fullJob)).toBe(true);
    expect(isRunnerJobRequest(OPTIONAL_JOB_FIELDS.reduce<object>(without, fullJob))).toBe(true);
  });

  it("refuse a job request missing any required field", () => {
    for (const field of Object.keys(fullJob).filter((f) => !OPTIONAL_JOB_FIELDS.includes(f))) {
      expect(isRunnerJobRequest(without(fullJob, field)), field).toBe(false);
    }
  });

  it("refuse a job request whose fields have the wrong shape", () => {
    const wrong: Record<string, unknown> = {
      jobId: "../etc",
      binary: "sh",
      args: ["-i", 1],
      preset: { name: "x" },
      task: { kind: "other", name: "t" },
      steps: Array.from({ length: 9 }, () => ({ binary: "ffmpeg", args: [] })),
      scratch: [{ name: "a b", fileName: "x" }],
      inputs: [{ name: "__proto__!", url: "u" }],
      outputs: [{ name: "out" }],
      onFailedCheck: "ignore",
      timeoutMs: 0,
      allowedPrivateHosts: "127.0.0.1",
      createdAt: 1,
      leaseMs: Number.POSITIVE_INFINITY,
      notifyUrl: 5,
      notifyProgress: "yes",
    };
    for (const [field, value] of Object.entries(wrong)) {
      expect(isRunnerJobRequest({ ...fullJob, [field]: value }), field).toBe(false);
    }
    expect(Object.keys(wrong).sort()).toEqual(Object.keys(fullJob).sort());
    // A segment's seams: declared-looking names and whole frame numbers, at least one edge.
    for (const seams of [
      { output: "__proto__!", scratch: "edges", windows: { head: true, tailFrom: null } },
      { output: "work", scratch: "edges", windows: { head: false, tailFrom: null } },
      { output: "work", scratch: "edges", windows: { head: true, tailFrom: -1 } },
      { output: "work", scratch: "edges", windows: { head: true, tailFrom: 1.5 } },
      { output: "work", scratch: "edges", windows: "all" },
    ])
      expect(isRunnerJobRequest({ ...fullJob, task: { ...fullJob.task, seams } }), JSON.stringify(seams)).toBe(false);
    expect(isRunnerJobRequest(null)).toBe(false);
    expect(isRunnerJobRequest([fullJob])).toBe(false);
  });

  it("check a probe request the same way", () => {
    expect(isRunnerProbeRequest(fullProbe)).toBe(true);
    expect(isRunnerProbeRequest(without(without(fullProbe, "measureVideoEnd"), "sceneScan"))).toBe(true);
    for (const field of ["probeId", "inputs", "allowedPrivateHosts", "timeoutMs"]) {
      expect(isRunnerProbeRequest(without(fullProbe, field)), field).toBe(false);
    }
    expect(isRunnerProbeRequest({ ...fullProbe, measureVideoEnd: 1 })).toBe(false);
    // A scene scan: a bounded number of finite cuts, a window within the plan's bound.
    const scan = fullProbe.sceneScan;
    for (const sceneScan of [
      { ...scan, cutsSeconds: Array.from({ length: 33 }, (_, i) => i * 5) },
      { ...scan, cutsSeconds: [5, Number.NaN] },
      { ...scan, cutsSeconds: ["5"] },
      { ...scan, windowSeconds: 3 },
      { ...scan, windowSeconds: 0 },
      { ...scan, formatStartSeconds: Number.POSITIVE_INFINITY },
      { ...scan, budgetMs: 0 },
      { ...scan, budgetMs: 30_001 },
      [scan],
    ])
      expect(isRunnerProbeRequest({ ...fullProbe, sceneScan }), JSON.stringify(sceneScan)).toBe(false);
  });
});
