import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import { describe, expect, it } from "vitest";
import { parsePlacement } from "../../src/runner/container-placement.ts";
import { acquire, instanceOf, reclaimable, release, type PoolState } from "../../src/runner/pool-state.ts";
import { egressAllows, egressScopeOf, mergeScopes, staleScopeKeys } from "../../src/runner/egress-scope.ts";
import { unreachableUrlIssues } from "../../src/jobs/request/url-input-checks.ts";
import type { CreateJobRequest } from "../../src/api/schemas/job-request.ts";

const request = (inputs: Record<string, string>): CreateJobRequest => ({
  binary: "ffmpeg",
  inputs: Object.fromEntries(Object.entries(inputs).map(([n, url]) => [n, { type: "url" as const, url }])),
  ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
});

describe("URL inputs production's egress cannot reach", () => {
  it("are refused in container mode when they name a port other than the scheme's own", () => {
    const req = request({ a: "http://media.example.com:8080/a.mp4", b: "https://media.example.com:80/b.mp4", c: "http://media.example.com:80/c.mp4", d: "https://media.example.com/d.mp4" });
    expect(unreachableUrlIssues(req, "container")).toEqual([
      { path: ["inputs", "a", "url"], message: "port 8080 cannot be reached: the service fetches http inputs only on port 80" },
      { path: ["inputs", "b", "url"], message: "port 80 cannot be reached: the service fetches https inputs only on port 443" },
    ]);
  });

  it("are refused in container mode when https names an IP address (the platform routes HTTPS by SNI)", () => {
    const req = request({ a: "https://93.184.216.34/a.mp4", b: "https://[2606:2800:220:1::1]/b.mp4", c: "http://93.184.216.34/c.mp4" });
    expect(unreachableUrlIssues(req, "container").map((i) => [i.path[1], i.message])).toEqual([
      ["a", expect.stringContaining("https inputs need a host name")],
      ["b", expect.stringContaining("https inputs need a host name")],
    ]);
    expect(unreachableUrlIssues(req, "local")).toEqual([]);
  });

  it("point at the array index for the array form, and are fine with a local runner", () => {
    const req: CreateJobRequest = { binary: "ffprobe", input: [{ type: "url", url: "https://x.example:8443/a" }], ffmpegArgs: ["{{input0}}"] };
    expect(unreachableUrlIssues(req, "container").map((i) => i.path)).toEqual([["input", "0", "url"]]);
    expect(unreachableUrlIssues(req, "local")).toEqual([]);
  });
});

describe("a job's egress scope", () => {
  const scope = egressScopeOf({
    jobId: "j", binary: "ffmpeg", args: [], timeoutMs: 1, allowedPrivateHosts: [], createdAt: "", leaseMs: 1, notifyUrl: null,
    inputs: [{ name: "a", url: "http://127.0.0.1:80/cdn-cgi/local/r2/s3/b/in?X-Amz-Signature=abc", fileName: "a.mp4", trusted: true }],
    outputs: [{ name: "o", fileName: "o.mp4", contentType: "video/mp4", uploadUrl: "https://acct.r2.cloudflarestorage.com/b/out?X-Amz-Signature=def" }],
  });

  it("allows exactly its requests, however the Worker spells the URL back", () => {
    expect(egressAllows(scope, "GET", "http://127.0.0.1/cdn-cgi/local/r2/s3/b/in?X-Amz-Signature=abc")).toBe(true);
    expect(egressAllows(scope, "PUT", "https://acct.r2.cloudflarestorage.com:443/b/out?X-Amz-Signature=def#x")).toBe(true);
  });

  it("refuses another method, path, query or host, and everything without a scope", () => {
    expect(egressAllows(scope, "PUT", "http://127.0.0.1/cdn-cgi/local/r2/s3/b/in?X-Amz-Signature=abc")).toBe(false);
    expect(egressAllows(scope, "GET", "http://127.0.0.1/v1/jobs")).toBe(false);
    expect(egressAllows(scope, "GET", "http://127.0.0.1/cdn-cgi/local/r2/s3/b/in?X-Amz-Signature=abd")).toBe(false);
    expect(egressAllows(scope, "GET", "http://127.0.0.2/cdn-cgi/local/r2/s3/b/in?X-Amz-Signature=abc")).toBe(false);
    expect(egressAllows(undefined, "GET", "http://127.0.0.1/")).toBe(false);
  });

  it("unions the scopes of the jobs an instance serves", () => {
    const other = { allow: [{ method: "GET" as const, url: "https://media.example.com/x.mp4" }] };
    const merged = mergeScopes([scope, other, scope]);
    expect(merged.allow).toHaveLength(3);
    expect(egressAllows(merged, "GET", "https://media.example.com/x.mp4")).toBe(true);
  });
});

describe("taking instances back", () => {
  it("takes back ended jobs' instances, never a running job's, and a probe's only after its lease", () => {
    const state: PoolState = { entries: [] };
    for (const id of ["done", "running", "probe-new", "probe-old"]) acquire(state, id, id === "probe-old" ? 0 : 900_000, 10, () => `pool-${id}`);
    const statuses = new Map([["done", "completed"], ["running", "running"]]);
    expect(reclaimable(state, statuses, 1_000_000, 300_000).sort()).toEqual(["done", "probe-old"]);
  });
});

describe("admitting a job to an instance", () => {
  it("drops every other job's scope, keeping the admitted job's", () => {
    expect(staleScopeKeys(["egress-scope:old", "egress-scope:new", "egress-scope:older"], "egress-scope:new")).toEqual(["egress-scope:old", "egress-scope:older"]);
    expect(staleScopeKeys([], "egress-scope:new")).toEqual([]);
  });
});

describe("a directory output's egress", () => {
  const prefix = "http://runner-files.ffjobs.internal/jobs/2c0d8a4e-0000-4000-8000-000000000001/hls/";
  const scope = egressScopeOf({
    jobId: "j", binary: "ffmpeg", args: [], timeoutMs: 1, allowedPrivateHosts: [], createdAt: "", leaseMs: 1, notifyUrl: null, inputs: [],
    outputs: [{ name: "hls", fileName: "master.m3u8", contentType: "application/vnd.apple.mpegurl", uploadUrl: prefix, kind: "directory", uploadToken: "t" }],
  });

  it("allows PUTs of plain file names under its prefix, nothing deeper, beside it or of another method", () => {
    expect(egressAllows(scope, "PUT", `${prefix}seg_0_000.ts`)).toBe(true);
    expect(egressAllows(scope, "PUT", `${prefix}sub/seg.ts`)).toBe(false);
    expect(egressAllows(scope, "PUT", `${prefix.replace("/hls/", "/other/")}seg.ts`)).toBe(false);
    expect(egressAllows(scope, "GET", `${prefix}seg_0_000.ts`)).toBe(false);
  });
});

describe("the egress of outputs sent to the user's storage", () => {
  const request = (outputs: RunnerJobRequest["outputs"]) => egressScopeOf({ jobId: "j", binary: "ffmpeg", args: [], timeoutMs: 1, allowedPrivateHosts: [], createdAt: "", leaseMs: 1, notifyUrl: null, inputs: [], outputs });

  it("is a client's URL, checked where it leads: one PUT, or a multipart upload's part PUTs and its completion POST", () => {
    const one = request([{ name: "o", fileName: "o.mp4", contentType: "video/mp4", uploadUrl: "https://bucket.example.com/o.mp4?X-Amz-Signature=s", destination: { headers: {} } }]);
    expect(one.allow).toEqual([{ method: "PUT", url: "https://bucket.example.com/o.mp4?X-Amz-Signature=s", external: true }]);
    const complete = "https://bucket.example.com/o.mp4?uploadId=u&X-Amz-Signature=c";
    const parts = request([{ name: "o", fileName: "o.mp4", contentType: "video/mp4", uploadUrl: complete,
      destination: { headers: {}, parts: { urls: ["https://bucket.example.com/o.mp4?partNumber=1&uploadId=u", "https://bucket.example.com/o.mp4?partNumber=2&uploadId=u"], partSizeBytes: 5 << 20, completeUrl: complete } } }]);
    expect(egressAllows(parts, "PUT", "https://bucket.example.com/o.mp4?partNumber=2&uploadId=u")).toBe(true);
    expect(egressAllows(parts, "PUT", "https://bucket.example.com/o.mp4?partNumber=3&uploadId=u")).toBe(false);
    expect(egressAllows(parts, "POST", complete)).toBe(true);
    expect(parts.allow.every((r) => r.external)).toBe(true);
  });

  it("for a directory, PUTs of plain file names under the prefix with the prefix's own query only", () => {
    const sas = "sv=2025-01-05&sr=c&sig=abc";
    const dir = request([{ name: "hls", fileName: "index.m3u8", contentType: "application/vnd.apple.mpegurl", uploadUrl: `https://acct.blob.core.windows.net/media/job/?${sas}`, kind: "directory", destination: { headers: {} } }]);
    expect(egressAllows(dir, "PUT", `https://acct.blob.core.windows.net/media/job/seg_000.ts?${sas}`)).toBe(true);
    expect(egressAllows(dir, "PUT", `https://acct.blob.core.windows.net/media/job/seg_000.ts?${sas}&comp=appendblock`)).toBe(false);
    expect(egressAllows(dir, "PUT", "https://acct.blob.core.windows.net/media/job/seg_000.ts")).toBe(false);
    expect(egressAllows(dir, "PUT", `https://acct.blob.core.windows.net/media/job/deeper/seg.ts?${sas}`)).toBe(false);
    expect(egressAllows(dir, "PUT", `https://acct.blob.core.windows.net/media/job/?${sas}`)).toBe(false);
    expect(dir.allow[0].external).toBe(true);
  });
});

describe("container placement", () => {
  it("is a warm pool of 20 by default, capped by pool:N, or a container per job", () => {
    expect(parsePlacement("pool")).toEqual({ kind: "pool", maxInstances: 20 });
    expect(parsePlacement("pool:3")).toEqual({ kind: "pool", maxInstances: 3 });
    expect(parsePlacement("per-job")).toEqual({ kind: "per-job" });
  });

  it("refuses anything else", () => {
    for (const bad of ["", "pool:", "pool:0", "pool:-1", "pool:10000", "shared"]) expect(parsePlacement(bad)).toBeNull();
  });
});

describe("the warm pool's bookkeeping", () => {
  let n = 0;
  const fresh = () => `c${++n}`;

  it("gives a job the instance idle the shortest time, one job per instance, new ones only under the cap", () => {
    const state: PoolState = { entries: [] };
    expect(acquire(state, "a", 0, 2, fresh)).toBe("c1");
    expect(acquire(state, "b", 0, 2, fresh)).toBe("c2");
    expect(acquire(state, "c", 0, 2, fresh)).toBeNull();
    expect(acquire(state, "a", 0, 2, fresh)).toBe("c1");
    release(state, "b", 100);
    release(state, "a", 200);
    expect(instanceOf(state, "a")).toBeNull();
    expect(acquire(state, "c", 300, 2, fresh)).toBe("c1");
    expect(acquire(state, "d", 300, 2, fresh)).toBe("c2");
    expect(instanceOf(state, "d")).toBe("c2");
    expect(state.entries).toHaveLength(2);
  });
});
