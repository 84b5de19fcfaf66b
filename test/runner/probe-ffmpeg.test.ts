import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createJobFolder } from "../../container/src/job-folder.ts";
import { createProber } from "../../container/src/probe.ts";
import { readSettings } from "../../container/src/settings.ts";
import { sandboxWorks } from "../../container/src/sandbox.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { jobRequest } from "./runner-api.ts";

/**
 * The runner's own ffprobe runs (progress duration, output metadata) read files a client sent or a
 * command made: they run in the job's sandbox, under the job's input options.
 */
const fx = mediaFixtures();
const settings = {
  ...readSettings({
    RUNNER_WORK_DIR: mkdtempSync(join(tmpdir(), "ffjobs-prober-")),
    RUNNER_CONTROL_SECRET: "x".repeat(32),
  }),
  isolation: "namespaces" as const,
};

async function folderWith(files: Record<string, (path: string) => void>) {
  const req = jobRequest({
    inputs: Object.keys(files).map((name) => ({
      name,
      url: `http://x/${name}.mp4`,
      fileName: `${name}.mp4`,
      trusted: false,
    })),
  });
  const folder = await createJobFolder(settings.workDir, req, settings.isolation);
  for (const [name, write] of Object.entries(files)) write(folder.hostPath(name)!);
  return folder;
}

describe("the runner's own probes", () => {
  it("read the job's files", async () => {
    expect(sandboxWorks(settings.bwrapPath).ok).toBe(true);
    const folder = await folderWith({ clip: (p) => copyFileSync(fx.clip, p) });
    const probed = await createProber(folder, { ...settings, sandboxProblem: null })("clip");
    expect(Number(probed?.format?.duration)).toBeCloseTo(3, 0);
  });

  it("see nothing outside the job's folder, even through a link a job could leave", async () => {
    const folder = await folderWith({ link: (p) => symlinkSync(fx.clip, p) });
    // Outside the sandbox the link leads to a real file...
    expect(
      execFileSync("ffprobe", ["-v", "error", "-show_format", folder.hostPath("link")!], { encoding: "utf8" }),
    ).toContain("duration=");
    // ...inside, there is nothing there.
    expect(await createProber(folder, settings)("link")).toBeNull();
  });
});
