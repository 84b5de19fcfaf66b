import { createHash, randomBytes } from "node:crypto";
import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJobFolder } from "../../container/src/job-folder.ts";
import { jobOwner, openFileIn, openTrustedDir } from "../../container/src/output-file.ts";
import {
  OUTPUT_WATCH_INTERVAL_MS,
  startOutputStreams,
  type OutputStreams,
} from "../../container/src/output-streams.ts";
import { readSettings } from "../../container/src/settings.ts";
import { newRunnerSecret } from "../../src/runner/runner-secret.ts";
import { MIN_PART_BYTES } from "../../src/jobs/request/limits.ts";
import { jobRequest } from "./runner-api.ts";

/** The Worker's part size (src/storage/output-parts.ts: R2's smallest). */
const PART = MIN_PART_BYTES;
const settings = { ...readSettings({ RUNNER_CONTROL_SECRET: newRunnerSecret() }), isolation: "namespaces" as const };
const workDir = mkdtempSync(join(tmpdir(), "ffjobs-output-streams-"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/**
 * A stand-in for the Worker's parts route (src/storage/output-parts.ts) over R2's multipart rules
 * (developers.cloudflare.com/r2/objects/multipart-objects: parts of 5 MiB or more, all but the last of
 * one size, the last no larger), as miniflare's bucket enforces them (test/worker/output-parts.test.ts
 * runs the real route on it). It records each call, and when, so a test can see what was sent early.
 */
async function startPartsReceiver(
  opts: { refuseComplete?: boolean; stallOnce?: string; stallParts?: boolean; refusePart?: string } = {},
) {
  const calls: { step: string; at: number }[] = [];
  const stalled = new Set<string>();
  const uploads = new Map<string, { parts: Map<number, Buffer>; aborted: boolean }>();
  const objects: Buffer[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    try {
      for await (const c of req) chunks.push(c as Buffer);
    } catch {
      return; // the runner dropped the request mid-body (a stuck part let go, a cancel)
    }
    const body = Buffer.concat(chunks);
    const step = req.url!.split("/").pop()!;
    calls.push({ step, at: Date.now() });
    // A peer that takes the body and never answers (the first time, or every part).
    if ((step === opts.stallOnce && !stalled.has(step)) || (opts.stallParts && step.startsWith("part-"))) {
      stalled.add(step);
      return;
    }
    if (step === opts.refusePart) return res.writeHead(500).end("refused");
    const json = (v: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(v));
    if (req.headers.authorization !== "Bearer token") return res.writeHead(403).end("bad token");
    if (step === "start") {
      const id = crypto.randomUUID();
      uploads.set(id, { parts: new Map(), aborted: false });
      return json({ uploadId: id });
    }
    const m = /^part-(\d+)$/.exec(step);
    const id = m ? String(req.headers["x-upload-id"]) : (JSON.parse(body.toString()) as { uploadId: string }).uploadId;
    const upload = uploads.get(id);
    if (!upload || upload.aborted) return res.writeHead(409).end("no such upload");
    if (m) {
      if (body.length > PART || body.length !== Number(req.headers["content-length"])) return res.writeHead(400).end();
      upload.parts.set(Number(m[1]), body);
      return json({ etag: createHash("md5").update(body).digest("hex") });
    }
    if (step === "abort") {
      upload.aborted = true;
      return res.writeHead(204).end();
    }
    const { parts } = JSON.parse(body.toString()) as { parts: { partNumber: number; etag: string }[] };
    const bodies = parts.map((p) => upload.parts.get(p.partNumber)!);
    const sizesOk = bodies.slice(0, -1).every((b) => b.length === PART) && bodies.at(-1)!.length <= PART;
    if (opts.refuseComplete || !sizesOk) return res.writeHead(409).end("refused");
    objects.push(Buffer.concat(bodies));
    uploads.delete(id);
    return json({ size: objects.at(-1)!.length });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/parts/job/o0/1/`;
  const close = () => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  };
  return { url, calls, uploads, objects, close };
}

/** A job folder with one declared file output sent in parts to `partsUrl`. */
async function jobWithOutput(partsUrl: string) {
  const req = jobRequest({
    outputs: [
      {
        name: "o0",
        fileName: "out.mp4",
        contentType: "video/mp4",
        uploadUrl: "http://127.0.0.1:9/unused",
        uploadToken: "token",
        streamParts: { url: partsUrl, partSizeBytes: PART },
      },
    ],
  });
  const folder = await createJobFolder(workDir, req, "namespaces");
  const path = folder.hostPath("o0")!;
  const openFinal = async () => {
    const out = await openTrustedDir(join(folder.root, "out"));
    return { out, file: await openFileIn(out, path.split("/").pop()!, jobOwner(null)) };
  };
  /** The runner's end of the job: the output opened as store-outputs.ts opens it, finished, all closed. */
  const finishAll = async (streams: OutputStreams) => {
    const { out, file } = await openFinal();
    try {
      return await streams.finish("o0", file);
    } finally {
      await streams.close();
      await file.handle.close();
      await out.handle.close();
    }
  };
  /** The streams started as execute-job.ts starts them, beside the command. */
  const start = (opts: { canceled?: AbortSignal; deadlineInMs?: number; settings?: typeof settings } = {}) =>
    startOutputStreams(
      req,
      folder,
      opts.settings ?? settings,
      opts.canceled ?? new AbortController().signal,
      Date.now() + (opts.deadlineInMs ?? 60_000),
    );
  return { req, folder, path, finishAll, start };
}

let receiver: Awaited<ReturnType<typeof startPartsReceiver>>;
beforeAll(async () => {
  receiver = await startPartsReceiver();
});
afterAll(() => receiver.close());

describe("an output sent while its command writes it", () => {
  it("sends whole parts as they are written, re-sends what changed after, and stores the final bytes", async () => {
    const { path, finishAll, start } = await jobWithOutput(receiver.url);
    const streams = start();
    const first = receiver.calls.length;
    // A muxer's way: the body appended a part at a time, then its header and an earlier part rewritten.
    for (let i = 0; i < 5; i++) {
      appendFileSync(path, randomBytes(PART));
      await sleep(OUTPUT_WATCH_INTERVAL_MS * 2);
    }
    appendFileSync(path, randomBytes(PART / 8));
    const finishedWriting = Date.now();
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.from("rewritten header"), 0, 16, 8);
    writeSync(fd, Buffer.from("rewritten index"), 0, 15, 2 * PART + 100);
    closeSync(fd);
    const sentEarly = receiver.calls.slice(first).filter((c) => c.at < finishedWriting && c.step.startsWith("part-"));
    // Parts 2 to 4 were written well past while the command ran; part 1 (headers) waits for the end.
    expect(sentEarly.map((c) => c.step)).toEqual(["part-2", "part-3", "part-4"]);

    const size = await finishAll(streams);
    const final = await readFile(path);
    expect(size).toBe(final.length);
    expect(sha(receiver.objects.at(-1)!)).toBe(sha(final));
    // After the end: part 1 and part 3 (changed), 5 and 6 (not sent yet); parts 2 and 4 kept.
    const after = receiver.calls.slice(first).filter((c) => c.at >= finishedWriting && c.step.startsWith("part-"));
    expect(after.map((c) => c.step).sort()).toEqual(["part-1", "part-3", "part-5", "part-6"]);
  });

  it("stores right a file cut shorter than the parts already sent (the caller then has one part or the whole)", async () => {
    const { path, finishAll, start } = await jobWithOutput(receiver.url);
    const streams = start();
    appendFileSync(path, randomBytes(4 * PART));
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 6);
    truncateSync(path, PART + 10);
    const size = await finishAll(streams);
    const final = await readFile(path);
    expect(size).toBe(final.length);
    expect(sha(receiver.objects.at(-1)!)).toBe(sha(final));
  });

  it("sends nothing for a small output, and aborts an upload that is never finished", async () => {
    const small = await jobWithOutput(receiver.url);
    const streams = small.start();
    appendFileSync(small.path, randomBytes(PART));
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 3);
    expect(await small.finishAll(streams)).toBeNull();

    const failed = await jobWithOutput(receiver.url);
    const left = failed.start();
    appendFileSync(failed.path, randomBytes(3 * PART));
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 4);
    expect([...receiver.uploads.values()].some((u) => u.parts.size > 0 && !u.aborted)).toBe(true);
    await left.close(); // the command failed: no finish
    expect([...receiver.uploads.values()].every((u) => u.aborted)).toBe(true);
  });

  it("answers null when storage refuses the completion, so the caller stores the file whole", async () => {
    const refusing = await startPartsReceiver({ refuseComplete: true });
    try {
      const { path, finishAll, start } = await jobWithOutput(refusing.url);
      const streams = start();
      appendFileSync(path, randomBytes(4 * PART));
      await sleep(OUTPUT_WATCH_INTERVAL_MS * 4);
      expect(await finishAll(streams)).toBeNull();
      expect(refusing.calls.some((c) => c.step === "abort")).toBe(true);
    } finally {
      await refusing.close();
    }
  });

  it("lets go of a file the job replaced, so a deleted file held open does not fill the job's disk", async () => {
    const { folder, path, finishAll, start } = await jobWithOutput(receiver.url);
    const streams = start();
    appendFileSync(path, randomBytes(3 * PART));
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 4);
    const heldDeleted = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        const target = (() => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`);
          } catch {
            return "";
          }
        })();
        return target.startsWith(folder.root) && target.endsWith("(deleted)");
      });
    appendFileSync(`${path}.new`, randomBytes(3 * PART));
    renameSync(`${path}.new`, path);
    expect(heldDeleted().length).toBeGreaterThan(0);
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 3);
    expect(heldDeleted()).toEqual([]);
    await finishAll(streams);
    expect(sha(receiver.objects.at(-1)!)).toBe(sha(await readFile(path)));
  });

  it("aborts the upload of a canceled job (the abort is not itself canceled)", async () => {
    const { path, start } = await jobWithOutput(receiver.url);
    const cancel = new AbortController();
    const streams = start({ canceled: cancel.signal });
    appendFileSync(path, randomBytes(3 * PART));
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 4);
    const before = receiver.calls.length;
    cancel.abort();
    await streams.close();
    expect(receiver.calls.slice(before).map((c) => c.step)).toEqual(["abort"]);
  });

  it("does not hold the job's end for a part stuck on its way, nor past the job's deadline", async () => {
    const stuck = await startPartsReceiver({ stallOnce: "part-2" });
    const never = await startPartsReceiver({ stallParts: true });
    try {
      const once = await jobWithOutput(stuck.url);
      const streams = once.start();
      appendFileSync(once.path, randomBytes(3 * PART));
      await sleep(OUTPUT_WATCH_INTERVAL_MS * 4);
      const t0 = Date.now();
      // The stuck part is dropped, not waited for: nothing was stored early, so the caller PUTs it whole.
      expect(await once.finishAll(streams)).toBeNull();
      expect(Date.now() - t0).toBeLessThan(5000);

      const late = await jobWithOutput(never.url);
      const ending = late.start({ deadlineInMs: 4000 });
      appendFileSync(late.path, randomBytes(3 * PART));
      await sleep(OUTPUT_WATCH_INTERVAL_MS * 3);
      const t1 = Date.now();
      expect(await late.finishAll(ending)).toBeNull();
      expect(Date.now() - t1).toBeLessThan(6000);
    } finally {
      await stuck.close();
      await never.close();
    }
  }, 30_000);

  it("sends no part once one fails at the end, before the caller stores the file whole", async () => {
    const refusing = await startPartsReceiver({ refusePart: "part-1" });
    try {
      const { path, finishAll, start } = await jobWithOutput(refusing.url);
      const streams = start();
      appendFileSync(path, randomBytes(3 * PART));
      await sleep(OUTPUT_WATCH_INTERVAL_MS * 4);
      appendFileSync(path, randomBytes(6 * PART)); // parts 3 to 9 still to send at the end
      expect(await finishAll(streams)).toBeNull();
      const settled = refusing.calls.length;
      await sleep(OUTPUT_WATCH_INTERVAL_MS * 2);
      expect(refusing.calls.length).toBe(settled);
      expect(refusing.calls.filter((c) => c.step.startsWith("part-")).length).toBeLessThan(6);
    } finally {
      await refusing.close();
    }
  });

  it("sends nothing of a sparse file, nor of one past the output limit", async () => {
    const sparse = await jobWithOutput(receiver.url);
    const before = receiver.calls.length;
    const streams = sparse.start();
    closeSync(openSync(sparse.path, "w"));
    truncateSync(sparse.path, 400 * PART);
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 3);
    await streams.close();

    const big = await jobWithOutput(receiver.url);
    const limited = { ...settings, maxOutputBytes: 3 * PART };
    const capped = big.start({ settings: limited });
    appendFileSync(big.path, randomBytes(4 * PART));
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 3);
    await capped.close();
    expect(receiver.calls.slice(before)).toEqual([]);
  });

  it("never reads through a link the job put in its output's place", async () => {
    const { path, start } = await jobWithOutput(receiver.url);
    const secret = join(workDir, "not-the-jobs.bin");
    appendFileSync(secret, randomBytes(4 * PART));
    symlinkSync(secret, path);
    const before = receiver.calls.length;
    const streams = start();
    await sleep(OUTPUT_WATCH_INTERVAL_MS * 4);
    await streams.close();
    expect(receiver.calls.slice(before)).toEqual([]);
  });
});
