import { beforeAll, describe, expect, it } from "vitest";
import { api, countRows, createAccount } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("argument policy at the API", () => {
  it.each([
    [["-i", "/etc/passwd", "{{out}}"], "1"],
    [["-i", "{{in}}", "-vf", "movie=/etc/passwd", "{{out}}"], "3"],
    [["-i", "{{in}}", "-vstats_file", "/tmp/x", "{{out}}"], "2"],
    [["-f", "concat", "-i", "{{in}}", "{{out}}"], "1"],
    [["-listen", "1", "-i", "{{in}}", "{{out}}"], "0"],
    [["-i", "{{in}}", "-af", "ladspa=file=/tmp/x.so", "{{out}}"], "3"],
    // What a filter denylist let through: now 400s at the graph's argument.
    [["-i", "{{in}}", "-vf", "cellauto=f=/etc/passwd", "{{out}}"], "3"],
    [["-i", "{{in}}", "-vf", "curves=psfile=/etc/passwd", "{{out}}"], "3"],
    [["-i", "{{in}}", "-vf", "curves=preset=vintage:plot=/tmp/x", "{{out}}"], "3"],
    [["-i", "{{in}}", "-lavfi", "[0:v][0:v]vmafmotion=stats_file=/tmp/x", "{{out}}"], "3"],
    [["-i", "{{in}}", "-filter_complex", "testsrc[t];[0:v][t]overlay", "{{out}}"], "3"],
  ])("refuses %j with a 400 at ffmpegArgs/%s and stores nothing", async (ffmpegArgs, index) => {
    const before = await countRows("jobs");
    const res = await api(account.key, "POST", "/v1/jobs", {
      inputs: { in: { type: "url", url: "https://media.example.com/a.mp4" } },
      outputs: { out: { fileName: "o.mp4" } },
      ffmpegArgs,
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({
      path: ["ffmpegArgs", index],
      message: expect.any(String),
      code: "custom",
    });
    expect(await countRows("jobs")).toBe(before);
  });
});
