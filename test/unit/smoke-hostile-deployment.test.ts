import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../client/src/index.ts";
import { boundedFetch, NoCompleteAnswer } from "../../scripts/smoke/bounded-fetch.ts";
import { checkHlsOutput } from "../../scripts/smoke/check-hls.ts";
import { checkReportCoherence, reportIncoherence } from "../../scripts/smoke/check-report-coherence.ts";
import { NotReadyYet, type Clock } from "../../scripts/smoke/cold-start.ts";
import { fetchPlatformReport } from "../../scripts/smoke/fetch-platform-report.ts";
import { runSmoke } from "../../scripts/smoke/run-smoke.ts";
import { REDACTED } from "../../scripts/smoke/safe-output.ts";
import { platformReportSchema, type PlatformReport } from "../../src/runner/platform-report.ts";

/**
 * The smoke test run against a hostile "deployment" on loopback (found by an attack pass): one that answers
 * slowly or never, answers without end, echoes the API key, lies in its platform report. The smoke test
 * must end, with a finding or a failure that says why, never print the key, and never call a lie expected.
 */
const KEY = "ffj_smokeTestKeyThatMustNeverBePrinted0123456";
type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
let handler: Handler = (_req, res) => res.writeHead(404).end();
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** A byte a tick for ever: never a whole answer, never idle long enough for a socket timeout. */
const trickle: Handler = (req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  const t = setInterval(() => res.write(" "), 20);
  req.on("close", () => clearInterval(t));
};
/** 1 MiB chunks, as fast as they are read, without a Content-Length: an answer with no end. */
const endless =
  (status: number): Handler =>
  (req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    const chunk = Buffer.alloc(1 << 20, 0x20);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once("drain", pump);
    };
    req.on("close", () => res.destroy());
    pump();
  };

const limits = { timeoutMs: 400, maxBytes: 4 * 1024 * 1024 };
const clock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

describe("the smoke test's requests against a hostile deployment", () => {
  it("end at their deadline when the answer trickles or never comes, and never read more than their cap", async () => {
    const bounded = boundedFetch(fetch, limits);
    for (const [what, h] of [
      ["trickling", trickle],
      ["silent", () => {}],
    ] as [string, Handler][]) {
      handler = h;
      const started = Date.now();
      const read = bounded(`${base}/v1/capabilities`).then((r) => r.text());
      await expect(read, what).rejects.toThrow(NoCompleteAnswer);
      await expect(read).rejects.toThrow(`no complete answer to GET ${base}/v1/capabilities within 0.4 s`);
      expect(Date.now() - started).toBeLessThan(3_000);
    }
    handler = endless(500);
    await expect(bounded(`${base}/v1/jobs`).then((r) => r.text())).rejects.toThrow(
      /answered HTTP 500 with more than 4194304 bytes/,
    );
    handler = (_req, res) => res.writeHead(200, { "content-length": String(2 ** 40) }).end();
    await expect(bounded(`${base}/v1/jobs`)).rejects.toThrow(
      /answered HTTP 200 with 1099511627776 bytes, more than the smoke test reads/,
    );
    // An honest answer passes whole: status, headers, body, where it came from.
    handler = (_req, res) => res.writeHead(201, { "x-kept": "yes" }).end('{"ok":true}');
    const ok = await bounded(`${base}/v1/files`, { method: "POST" });
    expect([ok.status, ok.headers.get("x-kept"), await ok.json(), ok.url]).toEqual([
      201,
      "yes",
      { ok: true },
      `${base}/v1/files`,
    ]);
    handler = (_req, res) => res.writeHead(204).end();
    expect((await bounded(`${base}/v1/files/x`, { method: "DELETE" })).status).toBe(204);
  });

  it("a trickling or endless deployment ends the whole smoke test within its budget, with why", async () => {
    for (const h of [trickle, endless(200)]) {
      handler = h;
      const lines: string[] = [];
      const started = Date.now();
      const run = runSmoke(
        { url: base, apiKey: KEY },
        {
          fetch,
          patience: { budgetMs: 1_500, retryEveryMs: 300, clock, log: (l) => lines.push(l) },
          requestLimits: limits,
        },
      );
      await expect(run).rejects.toThrow(
        /runner: the service was still not ready after .*(no complete answer to GET|more than 4194304 bytes)/,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(lines.join("\n")).toMatch(/runner: not ready yet/);
    }
  });

  it("never prints the API key, whatever the deployment echoes", async () => {
    for (const status of [400, 401, 502]) {
      handler = (req, res) =>
        res.writeHead(status, { "content-type": "application/json" }).end(
          JSON.stringify({
            error: `you sent ${req.headers.authorization}`,
            code: `ECHO_${req.headers.authorization}`,
          }),
        );
      const lines: string[] = [];
      const failure = await runSmoke(
        { url: base, apiKey: KEY },
        {
          fetch,
          patience: { budgetMs: 700, retryEveryMs: 300, clock, log: (l) => lines.push(l) },
          requestLimits: limits,
        },
      ).catch((e: Error) => e);
      expect(failure).toBeInstanceOf(Error);
      const printed = [...lines, (failure as Error).message].join("\n");
      expect(printed, `HTTP ${status}`).not.toContain(KEY);
      if (status === 400) expect(printed).toContain(`you sent Bearer ${REDACTED}`);
    }
  });
});

describe("a platform report that lies", () => {
  const refused = (via: "raw-socket" | "runner-client", url: string) => ({
    via,
    url,
    outcome: "worker-refused" as const,
    status: 403,
    detail: "the Worker's egress refused it",
    ms: 40,
  });
  const placeholders = [{ address: "11.0.0.1", family: 4 as const, kind: "sidecar-placeholder" as const }];
  const honest = (): PlatformReport =>
    platformReportSchema.parse({
      egress: "cloudflare",
      runnerMode: "container",
      publicHost: "example.com",
      checkedAt: "2026-11-26T12:00:00.000Z",
      durationMs: 2400,
      sandbox: { requested: "on", mode: "namespaces", description: "bubblewrap", fallbackReason: null, problem: null },
      dns: ["example.com", "runner-notify.ffjobs.internal", "runner-files.ffjobs.internal"].map((name, i) => ({
        name,
        role: i ? "internal" : "public",
        outcome: "resolved",
        addresses: placeholders,
        detail: "1 address(es)",
        ms: 3,
      })),
      connections: [
        refused("raw-socket", "http://example.com/"),
        refused("runner-client", "http://example.com/"),
        refused("runner-client", "https://example.com/"),
      ],
      notification: { outcome: "delivered", status: 204, detail: "the Worker answered HTTP 204", ms: 30 },
    });
  const lying = (change: (r: PlatformReport) => void) => {
    const r = honest();
    change(r);
    return r;
  };

  it("is judged only when it is about what was asked and agrees with itself", () => {
    expect(reportIncoherence(honest())).toBeNull();
    const local = lying((r) => {
      Object.assign(r, { runnerMode: "local", egress: "direct" });
      for (const x of [...r.dns, ...r.connections])
        Object.assign(x, { outcome: "not-applicable", addresses: [], status: null });
    });
    expect(reportIncoherence(local)).toBeNull();
    const lies: [string, (r: PlatformReport) => void, RegExp][] = [
      ["no lookups at all (was: DNS not applicable)", (r) => (r.dns = []), /its lookups are none/],
      ["an internal name left out", (r) => r.dns.pop(), /not one each of/],
      ["another name than asked", (r) => (r.publicHost = "evil.example.net"), /not the example\.com asked for/],
      [
        "a refused attempt listed before one that was answered",
        (r) => r.connections.unshift({ ...r.connections[0], outcome: "answered", status: 200 }),
        /connection attempts are/,
      ],
      [
        "a container whose runner connects by itself (was: three times not applicable)",
        (r) => {
          r.egress = "direct";
          for (const x of [...r.dns, ...r.connections])
            Object.assign(x, { outcome: "not-applicable", addresses: [], status: null });
        },
        /runs jobs in containers, yet the runner says its egress is direct/,
      ],
      [
        "a runner behind the sidecar that tried nothing",
        (r) => (r.connections[0].outcome = "not-applicable"),
        /calls a lookup or an attempt not applicable/,
      ],
      [
        "a local runner claiming the Worker refused it",
        (r) => Object.assign(r, { runnerMode: "local", egress: "direct" }),
        /reports lookups or attempts it never makes/,
      ],
      [
        "loopback labelled public",
        (r) => (r.dns[0].addresses = [{ address: "127.0.0.1", family: 4, kind: "public" }]),
        /127\.0\.0\.1 is labelled public/,
      ],
      [
        "a mapped loopback labelled private",
        (r) => (r.dns[1].addresses = [{ address: "::ffff:127.0.0.1", family: 6, kind: "private" }]),
        /the sidecar never carries it/,
      ],
      [
        "a private address labelled a placeholder",
        (r) => (r.dns[0].addresses = [{ address: "10.0.0.1", family: 4, kind: "sidecar-placeholder" }]),
        /labelled a sidecar placeholder/,
      ],
      [
        "an IPv4 address as IPv6",
        (r) => (r.dns[0].addresses = [{ address: "11.0.0.1", family: 6, kind: "sidecar-placeholder" }]),
        /labelled IPv6/,
      ],
      [
        "no address at all",
        (r) => (r.dns[0].addresses = [{ address: "example.com", family: 4, kind: "public" }]),
        /not an address the runner can read/,
      ],
    ];
    for (const [what, change, why] of lies) {
      const f = checkReportCoherence(lying(change));
      expect(f, what).toMatchObject({
        check: "platform report",
        verdict: "not-expected",
        required: true,
        detail: expect.stringMatching(why),
      });
    }
  });

  it("is read whole or not at all, whatever it holds: prototype keys, wrong types, no JSON, no end; a busy report is waited for", async () => {
    const o = { url: base, apiKey: KEY };
    const bounded = boundedFetch(fetch, limits);
    const answering =
      (status: number, body: string): Handler =>
      (_req, res) =>
        res.writeHead(status, { "content-type": "application/json" }).end(body);
    handler = answering(
      200,
      JSON.stringify({
        ...honest(),
        __proto__: { egress: "direct" },
        constructor: { prototype: { polluted: true } },
      }).replace('"egress":"cloudflare"', '"__proto__":{"egress":"direct"},"egress":"cloudflare"'),
    );
    const parsed = await fetchPlatformReport(o, bounded);
    expect(parsed).toEqual(honest());
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    handler = answering(200, JSON.stringify({ ...honest(), durationMs: "fast", dns: [{ name: 1 }] }));
    expect(await fetchPlatformReport(o, bounded)).toMatchObject({
      verdict: "not-expected",
      detail: expect.stringMatching(/does not match its schema/),
    });
    handler = answering(200, '{"egress":"cloudflare",');
    await expect(fetchPlatformReport(o, bounded)).rejects.toThrow(NotReadyYet);
    handler = trickle;
    await expect(fetchPlatformReport(o, bounded)).rejects.toThrow(
      /^no complete answer to POST .*\/v1\/admin\/platform-report within 0\.4 s/,
    );
    handler = endless(200);
    await expect(fetchPlatformReport(o, bounded)).rejects.toThrow(NotReadyYet);
    handler = answering(429, '{"error":"a platform report is already running for this account","code":"RATE_LIMITED"}');
    await expect(fetchPlatformReport(o, bounded)).rejects.toThrow(/HTTP 429: another platform report is running/);
  });
});

describe("an HLS playlist that points elsewhere", () => {
  it("is NOT expected, and nothing outside the output's folder is fetched", async () => {
    const playlistUrl = "https://ffjobs.example/outputs/j1/hls/tok/index.m3u8";
    const runJob = async () =>
      ({ id: "j1", status: "completed", outputs: [{ downloadUrl: playlistUrl, files: [] }] }) as unknown as Job;
    for (const segment of [
      "http://169.254.169.254/latest/meta-data/",
      "https://elsewhere.example/seg_000.ts",
      "../../other/tok/seg_000.ts",
      "//ffjobs.example.evil/seg.ts",
      "seg_000.ts?x=1",
    ]) {
      const fetched: string[] = [];
      const fetchFn = (async (url: string) => {
        fetched.push(String(url));
        return String(url) === playlistUrl
          ? new Response(`#EXTM3U\n#EXTINF:1.0,\n${segment}\n#EXT-X-ENDLIST\n`, {
              headers: { "access-control-allow-origin": "*" },
            })
          : new Response(new Uint8Array([0x47, 0, 0]), { headers: { "access-control-allow-origin": "*" } });
      }) as unknown as typeof fetch;
      const f = await checkHlsOutput({ runJob, fetch: fetchFn }, { id: "a1" });
      expect(f, segment).toMatchObject({
        verdict: "not-expected",
        detail: expect.stringMatching(/which is not a file of its own folder/),
      });
      expect(fetched).toEqual([playlistUrl]);
    }
  });
});
