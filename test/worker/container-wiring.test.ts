import { exports } from "cloudflare:workers";
import { ContainerProxy } from "@cloudflare/containers";
import { describe, expect, it } from "vitest";
import * as worker from "../../src/index.ts";
import { EGRESS_REFUSED_HEADER, type EgressScope } from "../../src/runner/egress-scope.ts";
import { mediaUrl } from "./helpers.ts";

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
    for (const [method, url] of [["GET", mediaUrl("clip.mp4")], ["PUT", mediaUrl("tone.wav")], ["GET", "http://127.0.0.2/tone.wav"]]) {
      const res = await egress.fetch(url, { method, body: method === "PUT" ? "x" : undefined });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.headers.get(EGRESS_REFUSED_HEADER)).toBe("refused");
      await res.body?.cancel();
    }
  });

  it("refuses everything while no job has scoped the container (the registered deny-all default)", async () => {
    const res = await egressFor().fetch(mediaUrl("tone.wav"));
    expect(res.status).toBe(403);
    expect(res.headers.get(EGRESS_REFUSED_HEADER)).toBe("refused");
  });
});
