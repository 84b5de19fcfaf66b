import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { createJobSchema } from "../../src/api/schemas/job-request.ts";
import { jobListSchema } from "../../src/api/schemas/jobs.ts";
import { prepareJob } from "../../src/api/prepare-job.ts";
import { loadConfig } from "../../src/config.ts";
import * as L from "../../src/jobs/request/limits.ts";
import { meteredD1 } from "./d1-bytes-read.ts";
import { api, createAccount } from "./helpers.ts";
import { insertJob } from "../../src/jobs/transitions/insert-job.ts";

/**
 * Found by an attack pass: the job list's command line is cut to 200 characters in SQL, and SQLite's
 * length() and substr() read text only up to its first NUL. An argument such as "\u0000AAAA…" counted
 * as 0 characters: every argument after it was joined and the whole line passed the cut, so a list
 * handed the Worker up to ~1 MiB a job (a page of 100: ~100 MB against the isolate's 128 MB). NUL
 * cannot reach ffmpeg anyway (arguments are C strings; Node's spawn refused it: the job failed
 * INTERNAL), so creation now refuses it; rows stored before that still list within the bound.
 */
const PAGE = 100;
const ROWS = PAGE + 1;
const KiB = 1024;
const utf8 = (s: string) => new TextEncoder().encode(s).byteLength;
/** A free-text value the policy takes (-metadata), starting with NUL: SQLite's length() says 0. */
const nulValue = (n: number) => `\u0000${"A".repeat(L.MAX_ARG_LENGTH_CHARS - 1 - (n % 10))}`;

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("NUL in a job's arguments (found by an attack pass)", () => {
  it("is refused at creation, at the argument, for a command and a step alike (ffmpeg's arguments are C strings)", async () => {
    const inputs = { src: { type: "url", url: "https://media.example.com/a.wav" } };
    const outputs = { out: { fileName: "o.wav" } };
    const one = await api(account.key, "POST", "/v1/jobs", {
      inputs,
      outputs,
      ffmpegArgs: ["-i", "{{src}}", "-metadata", "title=a\u0000b", "{{out}}"],
    });
    expect(one.status, JSON.stringify(one.body)).toBe(400);
    expect(one.body.details).toEqual([
      expect.objectContaining({ path: ["ffmpegArgs", "3"], message: expect.stringMatching(/NUL/) }),
    ]);
    const steps = await api(account.key, "POST", "/v1/jobs", {
      inputs,
      outputs,
      steps: [
        { ffmpegArgs: ["-i", "{{src}}", "{{out}}"] },
        { ffmpegArgs: ["-i", "{{src}}", "-metadata", "\u0000", "-f", "null", "-"] },
      ],
    });
    expect(steps.status, JSON.stringify(steps.body)).toBe(400);
    expect(steps.body.details).toEqual([
      expect.objectContaining({ path: ["steps", "1", "ffmpegArgs", "3"], message: expect.stringMatching(/NUL/) }),
    ]);
    const dry = await api(account.key, "POST", "/v1/jobs/validate", {
      inputs,
      outputs,
      ffmpegArgs: ["-i", "{{src}}", "-metadata", "\u0000x", "{{out}}"],
    });
    expect(dry.body).toMatchObject({ valid: false, details: [expect.objectContaining({ path: ["ffmpegArgs", "3"] })] });
    // A lone surrogate has no UTF-8 form either (D1 handed each back as three U+FFFD: a 200-character command listed as 528).
    const lone = await api(
      account.key,
      "POST",
      "/v1/jobs",
      `{"inputs":{"src":{"type":"url","url":"https://media.example.com/a.wav"}},"outputs":{"out":{"fileName":"o.wav"}},"ffmpegArgs":["-i","{{src}}","-metadata","title=${"\\ud800".repeat(300)}","{{out}}"]}`,
    );
    expect(lone.status, JSON.stringify(lone.body)).toBe(400);
    expect(lone.body.details).toEqual([
      expect.objectContaining({ path: ["ffmpegArgs", "3"], message: expect.stringMatching(/well-formed Unicode/) }),
    ]);
    expect((await api(account.key, "GET", "/v1/jobs")).body.data).toEqual([]);
  });

  it("in rows stored before that, still lists as a command line of 200 characters: the page stays ~KiB a job, not ~1 MiB", async () => {
    // The largest command the body allows, every value NUL-first; 8 steps (each had its own 200-character window).
    const step = (k: number) => ({
      ffmpegArgs: [
        "-i",
        "{{src}}",
        ...Array.from({ length: 30 }, (_, n) => ["-metadata", `t${k}${n}=x`]).flat(),
        "-f",
        "null",
        "-",
      ],
    });
    const body = {
      inputs: { src: { type: "url", url: "https://media.example.com/a.wav" } },
      steps: Array.from({ length: L.MAX_STEPS }, (_, k) => step(k)),
    };
    const { spec } = await prepareJob(
      env,
      loadConfig(env),
      account.accountId,
      createJobSchema.parse(body),
      "https://ffjobs.test",
    );
    // As a job created before the refusal was stored: the client's arguments as sent.
    for (const s of spec.steps!) s.args = s.args.map((a, n) => (/^t\d+=x$/.test(a) ? nulValue(n) : a));
    const requestBytes = utf8(JSON.stringify(spec));
    expect(requestBytes).toBeGreaterThan(900 * KiB);
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    for (let i = 0; i < ROWS; i++)
      await insertJob(env.DB, {
        id: crypto.randomUUID(),
        accountId: account.accountId,
        spec,
        now: new Date(start + i).toISOString(),
      });

    const db = meteredD1(env.DB);
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`https://ffjobs.test/v1/jobs?limit=${PAGE}`, { headers: { authorization: `Bearer ${account.key}` } }),
      { ...env, DB: db },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    console.log(
      `GET /v1/jobs?limit=${PAGE} over NUL-first arguments (${(requestBytes / KiB).toFixed(0)} KiB requests): ${(db.bytesRead() / KiB).toFixed(0)} KiB read from D1, ${(utf8(text) / KiB).toFixed(0)} KiB answered`,
    );
    expect(db.bytesRead()).toBeLessThanOrEqual(ROWS * 2 * KiB);
    expect(utf8(text)).toBeLessThanOrEqual(PAGE * 2 * KiB);
    const page = jobListSchema.parse(JSON.parse(text));
    expect(page.data).toHaveLength(PAGE);
    for (const job of page.data) {
      expect([...job.command].length).toBeLessThanOrEqual(L.COMMAND_PREVIEW_CHARS);
      expect(job.command.startsWith("ffmpeg -i {{src}} -metadata ")).toBe(true);
      // Cut where it was cut: marked as cut, never shown as if whole.
      expect(job.command.endsWith("…")).toBe(true);
    }
  }, 120_000);
});
