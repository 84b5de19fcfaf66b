import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isPlatformRequest,
  platformReport,
  realPlatformDeps,
  type PlatformDeps,
  type PlatformFacts,
} from "../../container/src/platform-report.ts";
import { FetchFailure } from "../../container/src/safe-fetch.ts";
import { readSettings } from "../../container/src/settings.ts";
import { freePort } from "../support/free-port.ts";
import { startRunner } from "../support/runner-process.ts";
import { EGRESS_REFUSED_HEADER } from "../../src/runner/egress-scope.ts";
import { newRunnerSecret, RUNNER_SECRET_HEADER } from "../../src/runner/runner-secret.ts";
import { runnerPlatformReportSchema, type RunnerPlatformRequest } from "../../src/runner/platform-report.ts";

/**
 * The runner's side of the platform report (container/src/platform-report.ts): what it looks up and
 * tries, and how it names what came back. Only loopback is ever reached: the Worker's refusal and a
 * server that is not the Worker are loopback servers, and names are ones /etc/hosts answers.
 */
const sandbox: PlatformFacts["sandbox"] = {
  requested: "on",
  mode: "namespaces",
  description: "bubblewrap",
  fallbackReason: null,
  problem: null,
};
const request = (over: Partial<RunnerPlatformRequest> = {}): RunnerPlatformRequest => ({
  reportId: crypto.randomUUID(),
  publicHost: "example.com",
  internalHosts: ["runner-notify.ffjobs.internal", "runner-files.ffjobs.internal"],
  notifyUrl: null,
  ...over,
});

let worker: http.Server;
let other: http.Server;
const base = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/`;
beforeAll(async () => {
  // The Worker's egress refusal, as src/runner/egress-scope.ts answers it; and something else answering.
  worker = http.createServer((_req, res) =>
    res
      .writeHead(403, { [EGRESS_REFUSED_HEADER]: "refused" })
      .end("egress refused GET example.com is not one of this job's inputs or outputs"),
  );
  other = http.createServer((_req, res) => res.writeHead(200).end("hello from the internet"));
  await Promise.all([worker, other].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
});
afterAll(() => Promise.all([worker, other].map((s) => new Promise((r) => s.close(r)))));

/** Deps whose answers a test gives, on a clock that stands still (every step took 0 ms). */
function given(over: Partial<PlatformDeps>): PlatformDeps {
  return {
    lookup: async () => [
      { address: "11.0.0.1", family: 4 },
      { address: "fd00::1", family: 6 },
    ],
    rawGet: async () => ({ status: 403, refusedHeader: "refused" }),
    runnerPost: async () => ({ status: 403, refusedHeader: "refused" }),
    notify: async () => 204,
    bypassNetworks: () => [{ family: 4, prefix: 10n << 24n, bits: 8 }],
    now: () => 1_000,
    ...over,
  };
}

describe("the runner's platform report", () => {
  it("behind the sidecar: every lookup's answers with their kind, each attempt's outcome, the notification", async () => {
    const answers: Record<string, { address: string; family: number }[]> = {
      "example.com": [
        { address: "93.184.215.14", family: 4 },
        { address: "11.0.0.1", family: 4 },
        { address: "192.168.7.7", family: 4 },
      ],
      "runner-notify.ffjobs.internal": [{ address: "10.0.0.9", family: 4 }],
    };
    const report = await platformReport(
      request({ notifyUrl: "http://runner-notify.ffjobs.internal/jobs/x" }),
      { egress: "cloudflare", sandbox },
      given({
        lookup: async (name) => {
          if (answers[name]) return answers[name];
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
        },
        runnerPost: async (url) => {
          if (url.startsWith("https:"))
            throw new FetchFailure("network", "network error (UNABLE_TO_VERIFY_LEAF_SIGNATURE)");
          return { status: 200, refusedHeader: null };
        },
      }),
    );
    expect(runnerPlatformReportSchema.parse(report)).toEqual(report);
    expect(report.dns).toEqual([
      {
        name: "example.com",
        role: "public",
        outcome: "resolved",
        detail: "3 address(es)",
        ms: 0,
        addresses: [
          { address: "93.184.215.14", family: 4, kind: "public" },
          { address: "11.0.0.1", family: 4, kind: "sidecar-placeholder" },
          { address: "192.168.7.7", family: 4, kind: "private" },
        ],
      },
      {
        name: "runner-notify.ffjobs.internal",
        role: "internal",
        outcome: "resolved",
        detail: "1 address(es)",
        ms: 0,
        addresses: [{ address: "10.0.0.9", family: 4, kind: "bypasses-sidecar" }],
      },
      {
        name: "runner-files.ffjobs.internal",
        role: "internal",
        outcome: "failed",
        addresses: [],
        detail: "getaddrinfo ENOTFOUND runner-files.ffjobs.internal",
        ms: 0,
      },
    ]);
    expect(report.connections.map((c) => [c.via, c.url, c.outcome, c.status])).toEqual([
      ["raw-socket", "http://example.com/", "worker-refused", 403],
      ["runner-client", "http://example.com/", "answered", 200],
      ["runner-client", "https://example.com/", "failed", null],
    ]);
    expect(report.connections[2].detail).toBe("network error (UNABLE_TO_VERIFY_LEAF_SIGNATURE)");
    expect(report.notification).toEqual({
      outcome: "delivered",
      status: 204,
      detail: "the Worker answered HTTP 204",
      ms: 0,
    });
  });

  it("names real answers from the real resolver and the runner's real client: a name on loopback is refused by the runner, as the sidecar would not carry it", async () => {
    const settings = readSettings({ RUNNER_CONTROL_SECRET: newRunnerSecret(), RUNNER_EGRESS: "cloudflare" });
    const real = realPlatformDeps(settings);
    const notified: string[] = [];
    const report = await platformReport(
      request({ publicHost: "localhost", internalHosts: [], notifyUrl: `${base(worker)}jobs/x` }),
      { egress: "cloudflare", sandbox },
      {
        ...real,
        // Port 80 is not ours to take here: the plain request goes to the loopback stand-ins instead.
        rawGet: (url) => real.rawGet(url.replace("http://localhost/", base(worker))),
        notify: async (url) => {
          notified.push(url);
          return real.notify(url);
        },
      },
    );
    expect(report.dns[0]).toMatchObject({
      name: "localhost",
      outcome: "resolved",
      addresses: expect.arrayContaining([{ address: "127.0.0.1", family: 4, kind: "bypasses-sidecar" }]),
    });
    expect(report.connections.map((c) => c.outcome)).toEqual(["worker-refused", "runner-refused", "runner-refused"]);
    expect(report.connections[1].detail).toMatch(/^the runner refused it: /);
    // The Worker's stand-in answers the notification 403: delivered means a 2xx, nothing else.
    expect(report.notification).toMatchObject({
      outcome: "failed",
      status: 403,
      detail: "the Worker answered HTTP 403",
    });
    expect(notified).toEqual([`${base(worker)}jobs/x`]);
    // Something other than the Worker answering a plain request, and nothing answering at all.
    expect(await real.rawGet(base(other))).toEqual({ status: 200, refusedHeader: null });
    const closed = `http://127.0.0.1:${await freePort()}/`;
    const unreachable = await platformReport(
      request({ publicHost: "localhost", internalHosts: [] }),
      { egress: "cloudflare", sandbox },
      { ...real, rawGet: () => real.rawGet(closed) },
    );
    expect(unreachable.connections[0]).toMatchObject({
      outcome: "failed",
      detail: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(unreachable.notification).toMatchObject({ outcome: "not-configured" });
  });

  it("for a runner that connects by itself: no lookup and no attempt (they would really leave), the notification all the same", async () => {
    let touched = 0;
    const report = await platformReport(
      request({ notifyUrl: "http://127.0.0.1:1/internal/runner-notify/jobs/x" }),
      { egress: "direct", sandbox },
      given({
        lookup: async () => {
          touched++;
          return [];
        },
        rawGet: async () => {
          touched++;
          return { status: 200, refusedHeader: null };
        },
        runnerPost: async () => {
          touched++;
          return { status: 200, refusedHeader: null };
        },
      }),
    );
    expect(touched).toBe(0);
    expect(report.dns.map((l) => l.outcome)).toEqual(["not-applicable", "not-applicable", "not-applicable"]);
    expect(report.connections.map((c) => c.outcome)).toEqual(["not-applicable", "not-applicable", "not-applicable"]);
    expect(report.notification.outcome).toBe("delivered");
  });

  it("answers within its schema whatever the host says: a name with 100 addresses, a bubblewrap error of 5,000 characters (found by an attack pass: the Worker refused such answers with a 500)", async () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ address: `11.0.${i >> 8}.${i & 255}`, family: 4 }));
    const longSandbox = {
      requested: "on" as const,
      mode: "uid" as const,
      description: "d".repeat(3000),
      fallbackReason: `bwrap: ${"e".repeat(5000)}`,
      problem: null,
    };
    const report = await platformReport(
      request(),
      { egress: "cloudflare", sandbox: longSandbox },
      given({ lookup: async () => many }),
    );
    expect(runnerPlatformReportSchema.safeParse(report).success).toBe(true);
    expect(report.dns[0]).toMatchObject({ outcome: "resolved", detail: "100 address(es), the first 64 shown" });
    expect(report.dns[0].addresses).toHaveLength(64);
    expect(report.sandbox.fallbackReason!.startsWith("bwrap: eee")).toBe(true);
    expect(report.sandbox.fallbackReason!.endsWith("…")).toBe(true);
    const unavailable = await platformReport(
      request(),
      {
        egress: "direct",
        sandbox: { ...longSandbox, mode: "unavailable", fallbackReason: null, problem: "p".repeat(9000) },
      },
      given({}),
    );
    expect(runnerPlatformReportSchema.safeParse(unavailable).success).toBe(true);
  });

  it("takes from the Worker only names and URLs of the expected shapes", () => {
    expect(isPlatformRequest(request())).toBe(true);
    expect(
      isPlatformRequest(
        request({ notifyUrl: "http://runner-notify.ffjobs.internal/jobs/5b1d0c1e-8f7a-4c64-9d2b-2f0f6a3c9e11" }),
      ),
    ).toBe(true);
    for (const bad of [
      { publicHost: "localhost" },
      { publicHost: "10.0.0.1" },
      { publicHost: "[::1]" },
      { publicHost: "metadata.google.internal" },
      { publicHost: "EXAMPLE.com" },
      { publicHost: "a b.com" },
      { reportId: "../../x" },
      { internalHosts: ["example.com"] },
      { internalHosts: Array(5).fill("a.ffjobs.internal") },
      { notifyUrl: "file:///etc/passwd" },
      { notifyUrl: "http://" },
    ]) {
      expect(isPlatformRequest(request(bad as Partial<RunnerPlatformRequest>)), JSON.stringify(bad)).toBe(false);
    }
    expect(isPlatformRequest(null)).toBe(false);
  });

  it("is the coordinator's alone: the runner answers it only with its control secret, and only a well-formed request", async () => {
    const runner = await startRunner(await freePort());
    try {
      const post = (body: unknown, secret: string | null) =>
        fetch(`${runner.url}/platform-report`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(secret ? { [RUNNER_SECRET_HEADER]: secret } : {}) },
          body: JSON.stringify(body),
        });
      expect((await post(request(), null)).status).toBe(401);
      expect((await post(request({ publicHost: "localhost" }), runner.secret)).status).toBe(400);
      const res = await post(request(), runner.secret);
      expect(res.status).toBe(200);
      const report = runnerPlatformReportSchema.parse(await res.json());
      expect(report).toMatchObject({
        egress: "direct",
        sandbox: { requested: "on" },
        notification: { outcome: "not-configured" },
      });
      expect(report.connections.every((c) => c.outcome === "not-applicable")).toBe(true);
    } finally {
      runner.stop();
    }
  });
});
