import http from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_WINDOW_BYTES } from "../../container/src/input-origin.ts";
import { startInputServer, type InputServer } from "../../container/src/input-server.ts";
import type { Resolver } from "../../src/net/destination-check.ts";
import { dohResolver } from "../../src/net/doh-resolver.ts";
import { createResolutionCache, jobResolver } from "../../src/net/resolution-cache.ts";
import type { EgressScope } from "../../src/runner/egress-scope.ts";
import { serveJobEgress } from "../../src/runner/job-egress.ts";

/**
 * What reading a multi-GiB URL input costs production's egress (docs/capacity.md, "Reading an
 * input by range"). The runner's own input server and range reader (container/src/input-server.ts,
 * input-origin.ts) serve one sequential read, as ffmpeg asks for it (`Range: bytes=0-`), of a
 * virtual object of OBJECT_BYTES (generated, never stored). Every window it asks for goes to a
 * loopback server that plays the Worker's outbound handler as workerd calls it (one invocation per
 * request, the URL rebuilt from the Host header, the job's scope as `ctx.params`) and runs the real
 * `serveJobEgress` with production's resolver wiring (`jobResolver` over `dohResolver`), whose DoH
 * endpoint is a counting in-process answer; the origin behind it is the virtual object. The cache's
 * clock is virtual: the read is taken to run at NOMINAL_BYTES_PER_SECOND, so TTL periods pass.
 */
const GIB = 1024 ** 3;
const OBJECT_BYTES = 2 * GIB;
const NOMINAL_BYTES_PER_SECOND = 100 * 1024 * 1024;
const DOH_TTL_SECONDS = 10;
const JOB_ID = "job-range-read";
/** Byte n of the object is n % PATTERN_PERIOD: each chunk's first byte says it came from the right offset. */
const PATTERN_PERIOD = 251;
const pattern = Buffer.from(Array.from({ length: PATTERN_PERIOD * 4096 }, (_, i) => i % PATTERN_PERIOD));
const CHUNK_BYTES = PATTERN_PERIOD * 4096 - PATTERN_PERIOD;

const counts = { invocations: 0, originRequests: 0, resolutions: 0, dohRequests: 0 };
const windows: { first: number; last: number }[] = [];
let consumedBytes = 0;
const cache = createResolutionCache(() => (consumedBytes / NOMINAL_BYTES_PER_SECOND) * 1000);

/** The virtual object, answering ranges as object stores do. */
function virtualOrigin(req: Request): Response {
  counts.originRequests++;
  const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.get("range") ?? "");
  if (!m) return new Response("ranges only", { status: 400 });
  const first = Number(m[1]);
  const last = Math.min(m[2] ? Number(m[2]) : OBJECT_BYTES - 1, OBJECT_BYTES - 1);
  windows.push({ first, last });
  let at = first;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at > last) return controller.close();
      const n = Math.min(CHUNK_BYTES, last - at + 1);
      const from = at % PATTERN_PERIOD;
      controller.enqueue(pattern.subarray(from, from + n));
      at += n;
    },
  });
  const headers = {
    "content-range": `bytes ${first}-${last}/${OBJECT_BYTES}`,
    "content-length": String(last - first + 1),
    etag: '"v1"',
    "accept-ranges": "bytes",
  };
  return new Response(body, { status: 206, headers });
}

/** The DoH endpoint, counted: every answer names one public address of each family, with DOH_TTL_SECONDS. */
const countingDoh = (async (input: URL | RequestInfo) => {
  counts.dohRequests++;
  const url = new URL(String(input));
  const [type, data] =
    url.searchParams.get("type") === "A" ? [1, "93.184.215.14"] : [28, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"];
  return Response.json({
    Status: 0,
    Answer: [{ name: `${url.searchParams.get("name")}.`, type, TTL: DOH_TTL_SECONDS, data }],
  });
}) as typeof fetch;

let egress: http.Server;
let inputs: InputServer;
let workDir: string;
let inputUrl: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "ffjobs-range-egress-"));
  egress = http.createServer((req, res) => {
    counts.invocations++;
    const url = `http://${req.headers.host}${req.url}`;
    const scope: EgressScope = {
      jobId: JOB_ID,
      allow: [{ method: "GET", url: inputUrl, external: true }],
      namedHosts: ["localhost"],
    };
    const ctx = { containerId: "container-1", params: scope };
    const counted: Resolver = (host) => {
      counts.resolutions++;
      return dohResolver("https://resolver.test/dns-query", countingDoh)(host);
    };
    const request = new Request(url, { method: req.method, headers: req.headers as Record<string, string> });
    serveJobEgress(request, ctx.params, {
      fetch: async (r) => virtualOrigin(r),
      resolve: jobResolver(ctx, counted, cache),
      allowedPrivateHosts: [],
      internal: () => null,
    })
      .then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        if (!answer.body) return void res.end();
        await pipeline(Readable.fromWeb(answer.body as unknown as WebReadableStream), res).catch(() => {});
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((r) => egress.listen(0, "localhost", r));
  const { port } = egress.address() as { port: number };
  // A host name, as production's are: the Worker resolves it (the runner reaches the stand-in on loopback).
  inputUrl = `http://localhost:${port}/big.bin`;
  inputs = await startInputServer(
    [{ name: "big", url: inputUrl, trusted: false, path: "/in/big.bin", copyPath: join(workDir, "big.bin") }],
    {
      fetch: { allowedPrivateHosts: ["localhost"] },
      maxInputBytes: 2 * OBJECT_BYTES,
      maxCopiedInputBytes: 1024,
      maxReadBytes: 2 * OBJECT_BYTES,
      originIdleMs: 30_000,
      deadline: Date.now() + 600_000,
      canceled: new AbortController().signal,
    },
  );
});
afterAll(async () => {
  await inputs?.close();
  egress?.close();
  await rm(workDir, { recursive: true, force: true });
});

/** ffmpeg's read of the whole input: one request from byte 0 to the input server's socket. */
async function readWhole(): Promise<{ bytes: number; misplaced: number }> {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http
      .get({ socketPath: inputs.socketPath, path: "/in/big.bin", headers: { range: "bytes=0-" } }, resolve)
      .on("error", reject),
  );
  let misplaced = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    if (chunk[0] !== consumedBytes % PATTERN_PERIOD) misplaced++;
    consumedBytes += chunk.length;
  }
  return { bytes: consumedBytes, misplaced };
}

describe("a multi-GiB input read by range through production's egress", () => {
  it("costs one invocation per window and one lookup (A + AAAA) per host and TTL period, not per window", async () => {
    const read = await readWhole();
    expect(inputs.failure()).toBeNull();
    expect(read).toEqual({ bytes: OBJECT_BYTES, misplaced: 0 });

    // Windows: contiguous, every byte asked for once, all but the first few at the largest size.
    const sorted = [...windows].sort((a, b) => a.first - b.first);
    expect(sorted[0].first).toBe(0);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i].first).toBe(sorted[i - 1].last + 1);
    expect(sorted.at(-1)!.last).toBe(OBJECT_BYTES - 1);
    const full = sorted.filter((w) => w.last - w.first + 1 === MAX_WINDOW_BYTES).length;
    expect(full).toBeGreaterThanOrEqual(Math.floor(OBJECT_BYTES / MAX_WINDOW_BYTES) - 2);
    // The ramp from 256 KiB is at most 10 windows covering at least 32 MiB (two largest ones).
    expect(windows.length).toBeLessThanOrEqual(Math.ceil(OBJECT_BYTES / MAX_WINDOW_BYTES) + 8);
    expect(counts.invocations).toBe(windows.length);
    expect(counts.originRequests).toBe(windows.length);

    const readSeconds = OBJECT_BYTES / NOMINAL_BYTES_PER_SECOND;
    const ttlPeriods = Math.floor(readSeconds / DOH_TTL_SECONDS) + 1;
    const hosts = 1;
    console.log(
      `${OBJECT_BYTES / GIB} GiB by range: ${windows.length} windows = ${counts.invocations} egress invocations, ${full} of ${MAX_WINDOW_BYTES / 2 ** 20} MiB; ` +
        `${counts.resolutions} resolutions = ${counts.dohRequests} DoH requests over ${readSeconds.toFixed(1)} virtual s at TTL ${DOH_TTL_SECONDS} s (uncached: ${2 * counts.invocations})`,
    );
    expect(counts.resolutions).toBe(hosts * ttlPeriods);
    expect(counts.dohRequests).toBe(2 * counts.resolutions);
    expect(cache.stats().entries).toBe(1);
  });
});
