import { env, exports } from "cloudflare:workers";
import { inject } from "vitest";
import { generateApiKey, hashApiKey, displayPrefix } from "../../src/auth/api-keys.ts";
import { createRunnerClient } from "../../src/runner/runner-client.ts";

export const mediaUrl = (file: string) => `${inject("mediaBaseUrl")}/${file}`;

/** A fresh mailbox on the loopback webhook receiver, and a way to read what reached it. */
export function webhookMailbox() {
  const box = crypto.randomUUID();
  const base = inject("webhookReceiverUrl");
  return {
    url: (behaviour = "ok") => `${base}/${behaviour}/${box}`,
    received: async (): Promise<{ headers: Record<string, string>; body: string }[]> =>
      (await fetch(`${base}/_received/${box}`)).json(),
  };
}

/** A fresh account with one API key; `credits` null means unlimited. */
export async function createAccount(credits: number | null = null): Promise<{ accountId: string; key: string }> {
  const accountId = crypto.randomUUID();
  const key = generateApiKey();
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO accounts (id, name, credit_balance, created_at) VALUES (?1, ?2, ?3, ?4)").bind(
      accountId,
      `acct-${accountId}`,
      credits,
      now,
    ),
    env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, key_hash, key_prefix, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    ).bind(crypto.randomUUID(), accountId, await hashApiKey(key), displayPrefix(key), now),
  ]);
  return { accountId, key };
}

export type ApiResponse<T = any> = { status: number; headers: Headers; body: T };

/** Calls the Worker's real fetch handler, as a client would. */
export async function api<T = any>(
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const init: RequestInit = { method, headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["Content-Type"] ??= "application/json";
  }
  const res = await exports.default.fetch(new Request(`https://ffjobs.test${path}`, init));
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

export async function waitForJob(
  key: string,
  id: string,
  done: (job: any) => boolean,
  timeoutMs = 20_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api(key, "GET", `/v1/jobs/${id}`);
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`job ${id} stuck: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const isTerminalJob = (job: { status: string }) =>
  ["completed", "failed", "canceled", "rejected"].includes(job.status);

export async function countRows(table: "jobs" | "assets"): Promise<number> {
  return (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
}

/** A queued job written straight to D1, with no queue message: it stays queued until a test moves it. */
export async function insertQueuedJob(
  accountId: string,
  spec: Partial<{ binary: string; args: string[]; inputs: object; outputs: object }> = {},
): Promise<string> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const full = { binary: "ffmpeg", args: ["-version"], inputs: {}, outputs: {}, webhookUrl: null, ...spec };
  await env.DB.prepare(
    "INSERT INTO jobs (id, account_id, binary, mode, status, request_json, created_at, updated_at) VALUES (?1, ?2, ?3, 'raw', 'queued', ?4, ?5, ?5)",
  )
    .bind(id, accountId, full.binary, JSON.stringify(full), now)
    .run();
  return id;
}

export async function jobStatus(id: string): Promise<string> {
  return (await env.DB.prepare("SELECT status FROM jobs WHERE id = ?1").bind(id).first<{ status: string }>())!.status;
}

/** The coordinator Durable Object of a job (one per job id). */
export const coordinator = (jobId: string) => env.JOB_COORDINATOR.get(env.JOB_COORDINATOR.idFromName(jobId));

/** A short ffprobe job on one of the test media files: real work for the runner, done in a moment. */
export const probeSpec = (file: string) => ({
  binary: "ffprobe",
  args: ["-v", "error", "-show_format", "{{m}}"],
  inputs: { m: { type: "url", url: mediaUrl(file) } },
});

/** A clock `m` minutes ahead of now, for services that must see time pass (the sweeper's thresholds). */
export const minutesLater = (m: number) => () => new Date(Date.now() + m * 60_000);

/** A POST /v1/jobs body that reads one URL input and writes nothing (`-f null`), with `extra` fields. */
export const nullOutputJob = (extra: Record<string, unknown>) => ({
  inputs: { a: { type: "url", url: "https://media.example.com/a.mp4" } },
  ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
  ...extra,
});

/** Reads until `ok` holds (a delivery logged, a webhook received), polling every 100 ms. */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A runner client whose runner answers every call with `answer()`; `calls` records them ("GET /jobs/…"). */
export function recordingRunner(answer: () => Response, calls: string[] = []) {
  const client = createRunnerClient({
    prepare: async () => null,
    fetch: async (_job, path, init) => {
      calls.push(`${init?.method ?? "GET"} ${path}`);
      return answer();
    },
    release: async () => {},
    timeouts: { startMs: 1000, callMs: 1000 },
  });
  return { calls, client };
}
