import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { jobListSchema } from "../../src/api/schemas/jobs.ts";
import type { JobSpec } from "../../src/jobs/request/job-request.ts";
import { COMMAND_PREVIEW_CHARS } from "../../src/jobs/request/limits.ts";
import { api, createAccount, insertQueuedJob } from "./helpers.ts";
import { insertJob } from "../../src/jobs/transitions/insert-job.ts";

let owner: { accountId: string; key: string };
let stranger: { accountId: string; key: string };
beforeAll(async () => {
  owner = await createAccount();
  stranger = await createAccount();
});

async function insertJobs(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await insertQueuedJob(owner.accountId));
    await new Promise((r) => setTimeout(r, 2));
  }
  return ids;
}

async function page(key: string, query: string) {
  const res = await api(key, "GET", `/v1/jobs${query}`);
  expect(res.status).toBe(200);
  return jobListSchema.parse(res.body);
}

describe("GET /v1/jobs", () => {
  it("lists newest first with keyset pages that stay correct while jobs are created", async () => {
    const first = await insertJobs(5);
    const p1 = await page(owner.key, "?limit=2");
    expect(p1.data.map((j) => j.id)).toEqual([first[4], first[3]]);
    expect(p1.nextCursor).toEqual(expect.any(String));
    const newer = await insertJobs(3);
    const p2 = await page(owner.key, `?limit=2&cursor=${encodeURIComponent(p1.nextCursor!)}`);
    expect(p2.data.map((j) => j.id)).toEqual([first[2], first[1]]);
    const p3 = await page(owner.key, `?limit=2&cursor=${encodeURIComponent(p2.nextCursor!)}`);
    expect(p3.data.map((j) => j.id)).toEqual([first[0]]);
    expect(p3.nextCursor).toBeNull();
    expect((await page(owner.key, "?limit=3")).data.map((j) => j.id)).toEqual([...newer].reverse());
  });

  it("defaults to 20 and filters by status", async () => {
    await insertJobs(21);
    expect((await page(owner.key, "")).data).toHaveLength(20);
    const canceled = (await page(owner.key, "?limit=1")).data[0];
    await api(owner.key, "POST", `/v1/jobs/${canceled.id}/cancel`);
    const only = await page(owner.key, "?status=canceled");
    expect(only.data.map((j) => j.id)).toEqual([canceled.id]);
    expect(only.data[0].status).toBe("canceled");
  });

  it("never shows another account's jobs, and answers their ids exactly like missing ones", async () => {
    const [id] = await insertJobs(1);
    expect((await page(stranger.key, "")).data).toEqual([]);
    const missing = crypto.randomUUID();
    for (const path of [`/v1/jobs/${id}`, `/v1/jobs/${id}/result`]) {
      const theirs = await api(stranger.key, "GET", path);
      const none = await api(stranger.key, "GET", path.replace(id, missing));
      expect(theirs).toMatchObject({ status: 404, body: none.body });
    }
    expect(await api(stranger.key, "POST", `/v1/jobs/${id}/cancel`)).toMatchObject({
      status: 404,
      body: { code: "NOT_FOUND" },
    });
    expect((await api(owner.key, "GET", `/v1/jobs/${id}`)).body.status).toBe("queued");
  });

  it("shows each job as a summary whose command line is the dashboard's (shell-quoted, planned arguments, steps), cut to 200 characters", async () => {
    const { accountId, key } = await createAccount();
    const at = Date.now();
    const insert = async (i: number, spec: Partial<JobSpec>, plannedArgs?: string[]) => {
      const id = crypto.randomUUID();
      await insertJob(env.DB, {
        id,
        accountId,
        spec: { binary: "ffmpeg", args: [], inputs: {}, outputs: {}, webhookUrl: null, ...spec },
        now: new Date(at + i).toISOString(),
      });
      if (plannedArgs)
        await env.DB.prepare("UPDATE jobs SET planned_args_json = ?2 WHERE id = ?1")
          .bind(id, JSON.stringify(plannedArgs))
          .run();
      return id;
    };
    // The lines dashboard/public/dashboard/command-line.js writes from each job's whole form.
    const quoted = await insert(0, {
      args: ["-i", "{{video}}", "-vf", "drawtext=text='it's'", "", "a b", "ünï", "-metadata", "title=$HOME", "{{out}}"],
    });
    const preset = await insert(1, { mode: "preset", preset: "hls-ladder", args: ["-i", "{{video}}"] }, [
      "-i",
      "{{video}}",
      "-c:v",
      "libx264",
      "{{hls}}/index.m3u8",
    ]);
    const steps = await insert(2, {
      steps: [
        { binary: "ffmpeg", args: ["-i", "{{a}}", "-pass", "1", "{{s}}"] },
        { binary: "ffprobe", args: ["-v", "error", "{{s}}"] },
      ],
    });
    const bare = await insert(3, { binary: "ffprobe", args: [] });
    // Cut at 200 characters (code points: an emoji is one), the last of them …
    const long = await insert(4, {
      args: ["-metadata", `title=${"😀".repeat(300)}`, ...Array.from({ length: 300 }, (_, i) => `-x${i}`)],
    });
    const empties = await insert(5, { args: Array.from({ length: 256 }, () => "") });

    const page = await api(key, "GET", "/v1/jobs?limit=10");
    const jobs = new Map(jobListSchema.parse(page.body).data.map((j) => [j.id, j]));
    expect(jobs.get(quoted)!.command).toBe(
      String.raw`ffmpeg -i {{video}} -vf 'drawtext=text='\''it'\''s'\''' '' 'a b' 'ünï' -metadata 'title=$HOME' {{out}}`,
    );
    expect(jobs.get(preset)!.command).toBe("ffmpeg -i {{video}} -c:v libx264 {{hls}}/index.m3u8");
    expect(jobs.get(steps)!.command).toBe("ffmpeg -i {{a}} -pass 1 {{s}} && ffprobe -v error {{s}}");
    expect(jobs.get(bare)!.command).toBe("ffprobe");
    const cut = [...jobs.get(long)!.command];
    expect(cut).toHaveLength(COMMAND_PREVIEW_CHARS);
    expect(cut.join("")).toBe(
      `ffmpeg -metadata 'title=${"😀".repeat(COMMAND_PREVIEW_CHARS - "ffmpeg -metadata 'title=".length - 1)}…`,
    );
    expect(jobs.get(empties)!.command).toBe(`ffmpeg ${"'' ".repeat(64)}…`);
    expect(jobs.get(quoted)).toMatchObject({
      status: "queued",
      mode: "raw",
      preset: null,
      metadata: {},
      errorMessage: null,
      progress: null,
    });
    expect(jobs.get(preset)).toMatchObject({ mode: "preset", preset: "hls-ladder" });
    // The whole form, with every argument, is the job's own GET.
    expect((await api(key, "GET", `/v1/jobs/${long}`)).body.ffmpegArgs).toHaveLength(302);
  });
});
