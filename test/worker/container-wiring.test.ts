import { env, exports } from "cloudflare:workers";
import { ContainerProxy } from "@cloudflare/containers";
import { describe, expect, it } from "vitest";
import * as worker from "../../src/index.ts";
import { EGRESS_REFUSED_HEADER, type EgressScope } from "../../src/runner/egress-scope.ts";
import { createAccount, insertQueuedJob, mediaUrl } from "./helpers.ts";

/**
 * The egress path as the containers library drives it: it calls ctx.exports.ContainerProxy with
 * these props, and workerd sends every request the container makes to that fetcher. Only the
 * container itself cannot run here (tests/container runs the whole path with real containers).
 */
function egressFor(scope?: EgressScope) {
  return exports.ContainerProxy({
    props: {
      enableInternet: false,
      containerId: "test-container",
      className: "FfmpegContainer",
      outboundByHostOverrides: {},
      outboundHandlerOverride: scope ? { method: "jobEgress", params: scope } : undefined,
      interceptAll: true,
    },
  });
}

describe("production container wiring", () => {
  it("exports the containers library's ContainerProxy entrypoint from the Worker", () => {
    expect(worker.ContainerProxy).toBe(ContainerProxy);
  });

  it("lets a job's container make exactly the requests its job scoped, through jobEgress", async () => {
    const input = mediaUrl("tone.wav");
    const res = await egressFor({ allow: [{ method: "GET", url: input }] }).fetch(input);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });

  it("refuses other URLs, other methods and other hosts, with a marker the runner explains", async () => {
    const egress = egressFor({ allow: [{ method: "GET", url: mediaUrl("tone.wav") }] });
    for (const [method, url] of [
      ["GET", mediaUrl("clip.mp4")],
      ["PUT", mediaUrl("tone.wav")],
      ["GET", "http://127.0.0.2/tone.wav"],
    ]) {
      const res = await egress.fetch(url, { method, body: method === "PUT" ? "x" : undefined });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.headers.get(EGRESS_REFUSED_HEADER)).toBe("refused");
      await res.body?.cancel();
    }
  });

  it("checks a client URL's real destination before fetching it: a private literal and an unresolvable name are refused, saying why", async () => {
    const literal = "http://10.0.0.7/clip.mp4";
    const named = "https://media.example.com/clip.mp4";
    const egress = egressFor({
      allow: [
        { method: "GET", url: literal, external: true },
        { method: "GET", url: named, external: true },
      ],
      namedHosts: ["10.0.0.7", "media.example.com"],
    });
    const refusedLiteral = await egress.fetch(literal);
    expect(refusedLiteral.status).toBe(403);
    expect(await refusedLiteral.text()).toBe("egress refused 10.0.0.7: 10.0.0.7 is not a public address");
    // The test resolver (EGRESS_RESOLVER_URL) answers nothing: the check fails closed.
    const refusedName = await egress.fetch(named);
    expect(refusedName.status).toBe(403);
    expect(await refusedName.text()).toMatch(
      /^egress refused media\.example\.com: the address of media\.example\.com could not be checked/,
    );
  });

  it("refuses everything while no job has scoped the container (the registered deny-all default)", async () => {
    const res = await egressFor().fetch(mediaUrl("tone.wav"));
    expect(res.status).toBe(403);
    expect(res.headers.get(EGRESS_REFUSED_HEADER)).toBe("refused");
  });
});

describe("the warm pool's Durable Object", () => {
  it("hands out one instance per job up to the cap, and takes back those held by finished jobs when full", async () => {
    const pool = env.CONTAINER_POOL!.get(env.CONTAINER_POOL!.idFromName(`test-${crypto.randomUUID()}`));
    const { accountId } = await createAccount();
    const [a, b, c] = [
      await insertQueuedJob(accountId),
      await insertQueuedJob(accountId),
      await insertQueuedJob(accountId),
    ];
    const first = await pool.acquire(a, 2);
    const second = await pool.acquire(b, 2);
    expect(first).not.toBe(second);
    expect(await pool.acquire(c, 2)).toBeNull();
    // Job a ended, but its coordinator never released the instance (it died): the pool takes it back.
    await env.DB.prepare("UPDATE jobs SET status = 'canceled' WHERE id = ?1").bind(a).run();
    expect(await pool.acquire(c, 2)).toBe(first);
    await pool.release(b);
    expect(await pool.instanceOf(b)).toBeNull();
    expect(await pool.acquire(a, 2)).toBe(second);
  });
});
