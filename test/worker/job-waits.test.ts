import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount, isTerminalJob, mediaUrl, waitForJob } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

const probe = () => ({
  binary: "ffprobe",
  input: [{ type: "url", url: mediaUrl("clip.mp4") }],
  ffmpegArgs: ["-v", "error", "-show_format", "{{input0}}"],
});
const endless = () => ({
  inputs: { a: { type: "url", url: mediaUrl("long.mp4") } },
  ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
});
const request = (path: string, init: RequestInit = {}) =>
  exports.default.fetch(
    new Request(`https://ffjobs.test${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${account.key}`, ...(init.headers ?? {}) },
    }),
  );

/** Reads a Server-Sent Events stream to its end (or until `stopAfter` events), parsed. */
async function readEvents(res: Response, stopAfter = Infinity) {
  const events: { id: string; event: string; job: any }[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (events.length < stopAfter) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const field = (name: string) => [...block.matchAll(/^(\w+): (.*)$/gm)].find((m) => m[1] === name)?.[2];
      if (field("event")) events.push({ id: field("id")!, event: field("event")!, job: JSON.parse(field("data")!) });
    }
  }
  await reader.cancel();
  return events;
}

describe("waiting for a job without polling", () => {
  it("GET ?wait=N answers as soon as the job ends", async () => {
    const created = await api(account.key, "POST", "/v1/jobs", probe());
    const waited = await api(account.key, "GET", `/v1/jobs/${created.body.id}?wait=30`);
    expect(waited.body).toMatchObject({ status: "completed", attempts: 1 });
  });

  it("says where a finished job's time went, in phases that add up to its wall time", async () => {
    const created = await api(account.key, "POST", "/v1/jobs", { ...probe(), outputs: {} });
    const job = (await api(account.key, "GET", `/v1/jobs/${created.body.id}?wait=30`)).body;
    const t = job.timings;
    expect(Object.keys(t)).toEqual(["queuedMs", "fetchMs", "runMs", "storeMs", "finishMs"]);
    for (const ms of Object.values(t) as number[]) expect(ms).toBeGreaterThanOrEqual(0);
    expect(t.runMs).toBeGreaterThan(0);
    const wall = Date.parse(job.finishedAt) - Date.parse(job.createdAt);
    const sum = (Object.values(t) as number[]).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - wall)).toBeLessThanOrEqual(wall * 0.05 + 2);
    expect((await api(account.key, "GET", `/v1/jobs/${created.body.id}/result`)).body.timings).toEqual(t);
  });

  it("GET ?wait=N gives up after N seconds with the job as it is, and refuses waits past the cap", async () => {
    const created = await api(account.key, "POST", "/v1/jobs", endless());
    const t0 = Date.now();
    const waited = await api(account.key, "GET", `/v1/jobs/${created.body.id}?wait=1`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(["queued", "running"]).toContain(waited.body.status);
    expect((await api(account.key, "GET", `/v1/jobs/${created.body.id}?wait=61`)).status).toBe(400);
    expect((await api(account.key, "GET", `/v1/jobs/${created.body.id}?wait=1&x=2`)).status).toBe(400);
    await api(account.key, "POST", `/v1/jobs/${created.body.id}/cancel`);
  });

  it("POST with Prefer: wait=N returns the finished job (200, Preference-Applied), or 202 when it takes longer", async () => {
    const done = await request("/v1/jobs", {
      method: "POST",
      body: JSON.stringify(probe()),
      headers: { "Content-Type": "application/json", Prefer: "wait=30" },
    });
    expect(done.status).toBe(200);
    expect(done.headers.get("Preference-Applied")).toBe("wait=30");
    expect(await done.json()).toMatchObject({ status: "completed", outputs: [] });
    const slow = await request("/v1/jobs", {
      method: "POST",
      body: JSON.stringify(endless()),
      headers: { "Content-Type": "application/json", Prefer: "respond-async, wait=1" },
    });
    expect(slow.status).toBe(202);
    expect(slow.headers.get("Preference-Applied")).toBeNull();
    const { id } = (await slow.json()) as { id: string };
    await api(account.key, "POST", `/v1/jobs/${id}/cancel`);
  });

  it("streams a job's changes as Server-Sent Events, ending with the terminal job; a resumed stream sends only what is new", async () => {
    const created = await api(account.key, "POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: mediaUrl("clip.mp4") } },
      ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
    });
    const res = await request(`/v1/jobs/${created.body.id}/events`);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const events = await readEvents(res);
    expect(events[0]).toMatchObject({ event: "status", job: { id: created.body.id } });
    expect(events.some((e) => e.event === "progress" && e.job.status === "running" && e.job.progress)).toBe(true);
    const last = events[events.length - 1];
    expect(last).toMatchObject({ event: "status", job: { status: "completed" } });
    expect(events.filter((e) => e.event === "status").map((e) => e.job.status)).toEqual([
      ...new Set(events.map((e) => e.job.status)),
    ]);
    const resumed = await readEvents(
      await request(`/v1/jobs/${created.body.id}/events`, { headers: { "Last-Event-ID": last.id } }),
    );
    expect(resumed).toEqual([]);
    const fresh = await readEvents(
      await request(`/v1/jobs/${created.body.id}/events`, { headers: { "Last-Event-ID": events[0].id } }),
    );
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatchObject({ event: "status", job: { status: "completed" } });
  });

  it("keeps a running job's progress in its coordinator: GET shows it current while D1 gets it only every 10 s", async () => {
    const created = await api(account.key, "POST", "/v1/jobs", endless());
    const seenByGet: number[] = [];
    const inD1 = new Set<string>();
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      const job = (await api(account.key, "GET", `/v1/jobs/${created.body.id}`)).body;
      if (job.status === "running" && job.progress) seenByGet.push(job.progress.outTimeSeconds ?? 0);
      const row = await env.DB.prepare("SELECT progress_json FROM jobs WHERE id = ?1")
        .bind(created.body.id)
        .first<{ progress_json: string | null }>();
      if (row?.progress_json) inD1.add(row.progress_json);
      await new Promise((r) => setTimeout(r, 250));
    }
    await api(account.key, "POST", `/v1/jobs/${created.body.id}/cancel`);
    expect(new Set(seenByGet).size, JSON.stringify(seenByGet)).toBeGreaterThanOrEqual(4);
    expect(seenByGet).toEqual([...seenByGet].sort((a, b) => a - b));
    expect(inD1.size).toBe(1);
  });

  it("survives clients that go away mid-wait and mid-stream: the job goes on, the next wait answers", async () => {
    const created = await api(account.key, "POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: mediaUrl("clip.mp4") } },
      ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
    });
    const id = created.body.id;
    const gone = new AbortController();
    const abandoned = request(`/v1/jobs/${id}?wait=30`, { signal: gone.signal });
    setTimeout(() => gone.abort(), 200);
    await expect(abandoned).rejects.toThrow();
    const stream = await request(`/v1/jobs/${id}/events`);
    expect(await readEvents(stream, 1)).toHaveLength(1);
    const job = await waitForJob(account.key, id, isTerminalJob);
    expect(job.status).toBe("completed");
    const t0 = Date.now();
    expect((await api(account.key, "GET", `/v1/jobs/${id}?wait=30`)).body.status).toBe("completed");
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
