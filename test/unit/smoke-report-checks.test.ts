import { describe, expect, it } from "vitest";
import { checkDirectConnection } from "../../scripts/smoke/check-direct-connection.ts";
import { checkDns } from "../../scripts/smoke/check-dns.ts";
import { checkHttpsEgress } from "../../scripts/smoke/check-https-egress.ts";
import { checkNotification } from "../../scripts/smoke/check-notification.ts";
import { checkSandbox } from "../../scripts/smoke/check-sandbox.ts";
import { NotReadyYet } from "../../scripts/smoke/cold-start.ts";
import { fetchPlatformReport } from "../../scripts/smoke/fetch-platform-report.ts";
import { failures, formatFinding } from "../../scripts/smoke/finding.ts";
import { platformReportSchema, type PlatformReport } from "../../src/runner/platform-report.ts";

/**
 * The smoke test's judgement of a platform report (scripts/smoke/check-*.ts): a deploy's report as
 * Cloudflare's sidecar of wrangler dev would make it is as expected; each wrong platform answer is
 * NOT expected, with one line of what to do.
 */
const refused = (via: "raw-socket" | "runner-client", url: string) => ({
  via,
  url,
  outcome: "worker-refused" as const,
  status: 403,
  detail: "the Worker's egress refused it (x-ffjobs-egress: refused)",
  ms: 40,
});
const placeholders = [
  { address: "11.0.0.1", family: 4 as const, kind: "sidecar-placeholder" as const },
  { address: "fd00::1", family: 6 as const, kind: "sidecar-placeholder" as const },
];

function deployed(): PlatformReport {
  return platformReportSchema.parse({
    egress: "cloudflare",
    runnerMode: "container",
    publicHost: "example.com",
    checkedAt: "2026-11-26T12:00:00.000Z",
    durationMs: 2400,
    sandbox: {
      requested: "on",
      mode: "namespaces",
      description: "bubblewrap: every namespace unshared",
      fallbackReason: null,
      problem: null,
    },
    dns: ["example.com", "runner-notify.ffjobs.internal", "runner-files.ffjobs.internal"].map((name, i) => ({
      name,
      role: i ? "internal" : "public",
      outcome: "resolved",
      addresses: placeholders,
      detail: "2 address(es)",
      ms: 3,
    })),
    connections: [
      refused("raw-socket", "http://example.com/"),
      refused("runner-client", "http://example.com/"),
      refused("runner-client", "https://example.com/"),
    ],
    notification: { outcome: "delivered", status: 204, detail: "the Worker answered HTTP 204", ms: 30 },
  });
}
const checks = (r: PlatformReport) => [
  checkSandbox(r),
  checkDns(r),
  checkDirectConnection(r),
  checkHttpsEgress(r),
  checkNotification(r),
];
const wrong = (change: (r: PlatformReport) => void) => {
  const r = deployed();
  change(r);
  return r;
};

describe("the smoke test's platform report checks", () => {
  it("find a deploy behind the sidecar as expected", () => {
    const found = checks(deployed());
    expect(found.map((f) => f.verdict)).toEqual(["expected", "expected", "expected", "expected", "expected"]);
    expect(found[1].detail).toBe(
      "example.com → 11.0.0.1, fd00::1; runner-notify.ffjobs.internal → 11.0.0.1, fd00::1; runner-files.ffjobs.internal → 11.0.0.1, fd00::1 (the sidecar's placeholders, as under wrangler dev); the runner's client accepts them",
    );
    expect(failures(found)).toEqual([]);
  });

  it("take private-range answers the sidecar still carries to the Worker, and say so", () => {
    const f = checkDns(wrong((r) => (r.dns[0].addresses = [{ address: "10.1.2.3", family: 4, kind: "private" }])));
    expect(f.verdict).toBe("expected");
    expect(f.detail).toMatch(/private-range addresses, which the sidecar still carries to the Worker/);
  });

  it("find DNS answers wrong: a name that does not resolve, an answer the sidecar does not carry, answers the runner's client refuses", () => {
    const internal = checkDns(
      wrong((r) =>
        Object.assign(r.dns[1], {
          outcome: "failed",
          addresses: [],
          detail: "getaddrinfo ENOTFOUND runner-notify.ffjobs.internal",
        }),
      ),
    );
    expect(internal).toMatchObject({
      verdict: "not-expected",
      required: true,
      detail: "runner-notify.ffjobs.internal: getaddrinfo ENOTFOUND runner-notify.ffjobs.internal",
    });
    expect(internal.advice).toMatch(/runner notifications and directory outputs \(HLS\) will fail/);
    const publicName = checkDns(
      wrong((r) => Object.assign(r.dns[0], { outcome: "failed", addresses: [], detail: "no answer within 5000 ms" })),
    );
    expect(publicName.advice).toMatch(/every URL input and destination will fail/);
    const bypass = checkDns(
      wrong((r) => (r.dns[0].addresses = [{ address: "172.17.0.1", family: 4, kind: "bypasses-sidecar" }])),
    );
    expect(bypass).toMatchObject({
      verdict: "not-expected",
      detail: "example.com → 172.17.0.1: in a range Cloudflare's sidecar does not carry to the Worker",
    });
    const runnerRefused = checkDns(
      wrong((r) => {
        r.dns[0].addresses = [{ address: "10.1.2.3", family: 4, kind: "private" }];
        Object.assign(r.connections[1], {
          outcome: "runner-refused",
          status: null,
          detail: "the runner refused it: the address is not publicly routable",
        });
      }),
    );
    expect(runnerRefused.verdict).toBe("not-expected");
    expect(runnerRefused.detail).toMatch(
      /example.com → 10.1.2.3.*the runner's own client refused them \(the runner refused it: the address is not publicly routable\)/,
    );
    expect(runnerRefused.advice).toMatch(/URL inputs and destinations would fail the same way/);
  });

  it("find a direct connection that got past the Worker, or went nowhere, not as expected", () => {
    const leaked = checkDirectConnection(
      wrong((r) =>
        Object.assign(r.connections[0], {
          outcome: "answered",
          status: 200,
          detail: "HTTP 200 without x-ffjobs-egress: something other than the Worker's egress answered",
        }),
      ),
    );
    expect(leaked).toMatchObject({ verdict: "not-expected", required: true });
    expect(leaked.detail).toBe(
      "GET http://example.com/: HTTP 200 without x-ffjobs-egress: something other than the Worker's egress answered",
    );
    expect(leaked.advice).toMatch(/^do not let untrusted accounts run jobs/);
    const nowhere = checkDirectConnection(
      wrong((r) =>
        Object.assign(r.connections[0], { outcome: "failed", status: null, detail: "connect ETIMEDOUT 11.0.0.1:80" }),
      ),
    );
    expect(nowhere.advice).toMatch(/reach neither the Worker nor anything else/);
    const tls = checkHttpsEgress(
      wrong((r) =>
        Object.assign(r.connections[2], {
          outcome: "failed",
          status: null,
          detail: "network error (UNABLE_TO_VERIFY_LEAF_SIGNATURE)",
        }),
      ),
    );
    expect(tls).toMatchObject({
      verdict: "not-expected",
      advice: expect.stringMatching(/does not trust the platform's interception CA/),
    });
    const httpsRefused = checkHttpsEgress(
      wrong((r) =>
        Object.assign(r.connections[2], {
          outcome: "runner-refused",
          status: null,
          detail: "the runner refused it: the address is not publicly routable",
        }),
      ),
    );
    expect(httpsRefused.advice).toMatch(/see the container DNS finding/);
    const httpsLeak = checkHttpsEgress(
      wrong((r) => Object.assign(r.connections[2], { outcome: "answered", status: 200 })),
    );
    expect(httpsLeak.advice).toMatch(/HTTPS leaves the container without the Worker/);
  });

  it("judge the sandbox the runner chose: the uid fallback with its reason, none at all, off only as configured", () => {
    const uid = checkSandbox(
      wrong((r) =>
        Object.assign(r.sandbox, { mode: "uid", fallbackReason: "bubblewrap: setting up uid map: Permission denied" }),
      ),
    );
    expect(uid).toMatchObject({
      verdict: "expected",
      detail: expect.stringMatching(
        /^the uid fallback, because bubblewrap cannot start here \(bubblewrap: setting up uid map: Permission denied\)/,
      ),
    });
    const none = checkSandbox(
      wrong((r) =>
        Object.assign(r.sandbox, {
          mode: "unavailable",
          problem: "bubblewrap: no user namespaces; uid fallback: seccomp unavailable",
        }),
      ),
    );
    expect(none).toMatchObject({
      verdict: "not-expected",
      required: true,
      advice: expect.stringMatching(/^set CONTAINER_RUNNER_SANDBOX=off/),
    });
    expect(none.detail).toMatch(/every job fails SANDBOX_UNAVAILABLE/);
    expect(checkSandbox(wrong((r) => Object.assign(r.sandbox, { mode: "off", requested: "off" }))).verdict).toBe(
      "expected",
    );
    expect(checkSandbox(wrong((r) => Object.assign(r.sandbox, { mode: "off", requested: "on" }))).verdict).toBe(
      "not-expected",
    );
  });

  it("warn, without failing the smoke test, when a notification does not reach the Worker", () => {
    const f = checkNotification(
      wrong(
        (r) =>
          (r.notification = {
            outcome: "failed",
            status: null,
            detail: "getaddrinfo ENOTFOUND runner-notify.ffjobs.internal",
            ms: 12,
          }),
      ),
    );
    expect(f).toMatchObject({ verdict: "not-expected", required: false });
    expect(f.advice).toMatch(/jobs still finish, noticed at the coordinator's next poll/);
    expect(failures([f])).toEqual([]);
    expect(formatFinding(f)).toEqual([
      "✗ NOT expected (a warning: jobs still work): runner notification: it did not reach the Worker: getaddrinfo ENOTFOUND runner-notify.ffjobs.internal",
      `    what to do: ${f.advice}`,
    ]);
  });

  it("say 'not applicable here' for a runner without the sidecar, never 'expected'", () => {
    const local = wrong((r) => {
      r.egress = "direct";
      for (const l of r.dns) Object.assign(l, { outcome: "not-applicable", addresses: [] });
      for (const c of r.connections) Object.assign(c, { outcome: "not-applicable", status: null });
    });
    expect(checks(local).map((f) => f.verdict)).toEqual([
      "expected",
      "not-applicable",
      "not-applicable",
      "not-applicable",
      "expected",
    ]);
    expect(formatFinding(checkDns(local))[0]).toMatch(/^- not applicable here: container DNS: /);
  });
});

describe("asking for the platform report", () => {
  const answering = (status: number, body: unknown) =>
    (async () =>
      new Response(typeof body === "string" ? body : JSON.stringify(body), { status })) as unknown as typeof fetch;
  const o = { url: "https://ffjobs.example.workers.dev", apiKey: "k" };

  it("parses it with its schema, or says why there is none", async () => {
    expect(await fetchPlatformReport(o, answering(200, deployed()))).toEqual(deployed());
    expect(await fetchPlatformReport(o, answering(403, { code: "FORBIDDEN" }))).toMatchObject({
      verdict: "not-expected",
      detail: expect.stringMatching(/not an operator's/),
    });
    expect(await fetchPlatformReport(o, answering(404, { code: "NOT_FOUND" }))).toMatchObject({
      verdict: "not-expected",
      advice: expect.stringMatching(/deploy this version/),
    });
    expect(await fetchPlatformReport(o, answering(200, { ...deployed(), dns: "none" }))).toMatchObject({
      verdict: "not-expected",
      detail: expect.stringMatching(/does not match its schema \(dns: /),
    });
  });

  it("waits while the service or its container is not ready yet", async () => {
    await expect(fetchPlatformReport(o, answering(503, { code: "RUNNER_UNAVAILABLE" }))).rejects.toBeInstanceOf(
      NotReadyYet,
    );
    await expect(fetchPlatformReport(o, answering(200, "<html>starting</html>"))).rejects.toBeInstanceOf(NotReadyYet);
    const refusing = (async () => {
      throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") });
    }) as unknown as typeof fetch;
    await expect(fetchPlatformReport(o, refusing)).rejects.toThrow(/cannot connect: connect ECONNREFUSED/);
  });
});
