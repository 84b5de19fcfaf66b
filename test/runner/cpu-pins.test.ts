import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jobRequest } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/**
 * RUNNER_PIN_CPUS (container/src/cpu-pins.ts): each running job's processes on one CPU of the list,
 * jobs running at once on different ones, as one-vCPU containers would be (the split-encode bench).
 */
const workDir = mkdtempSync(join(tmpdir(), "ffjobs-pins-"));
const { h, input } = useRunnerHarness({ RUNNER_CONCURRENCY: "2", RUNNER_PIN_CPUS: "0,1", RUNNER_WORK_DIR: workDir });

/** The CPUs the processes of this runner's job folder may run on, by job id. */
function allowedCpus(jobId: string): string[] {
  const pids = execFileSync("pgrep", ["-f", join(workDir, jobId)], { encoding: "utf8" })
    .trim()
    .split("\n")
    .filter(Boolean);
  return [
    ...new Set(pids.map((pid) => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1])),
  ];
}

describe("CPU pinning", () => {
  it("runs two jobs at once each on a CPU of its own", async () => {
    const jobs = [0, 1].map(() =>
      jobRequest({ args: ["-re", "-i", "{{in}}", "-t", "4", "-f", "null", "-"], inputs: [input("in", "long.mp4")] }),
    );
    for (const job of jobs) await h.api.submit(job);
    for (const job of jobs) await h.api.waitFor(job.jobId, (s) => s.state === "running");
    await new Promise((r) => setTimeout(r, 500));
    const pins = jobs.map((j) => allowedCpus(j.jobId));
    expect(pins.map((p) => p.length)).toEqual([1, 1]);
    expect(pins.flat().sort()).toEqual(["0", "1"]);
    for (const job of jobs)
      expect((await h.api.waitFor(job.jobId, (s) => s.state === "finished")).outcome!.status).toBe("completed");
  });
});
