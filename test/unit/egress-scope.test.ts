import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import { describe, expect, it } from "vitest";
import { egressAllows, egressScopeOf, mergeScopes, staleScopeKeys } from "../../src/runner/egress-scope.ts";

describe("a job's egress scope", () => {
  const scope = egressScopeOf({
    jobId: "j",
    binary: "ffmpeg",
    args: [],
    timeoutMs: 1,
    allowedPrivateHosts: [],
    createdAt: "",
    leaseMs: 1,
    notifyUrl: null,
    inputs: [
      {
        name: "a",
        url: "http://127.0.0.1:80/cdn-cgi/local/r2/s3/b/in?X-Amz-Signature=abc",
        fileName: "a.mp4",
        trusted: true,
      },
    ],
    outputs: [
      {
        name: "o",
        fileName: "o.mp4",
        contentType: "video/mp4",
        uploadUrl: "https://acct.r2.cloudflarestorage.com/b/out?X-Amz-Signature=def",
      },
    ],
  });

  it("allows exactly its requests, however the Worker spells the URL back", () => {
    expect(egressAllows(scope, "GET", "http://127.0.0.1/cdn-cgi/local/r2/s3/b/in?X-Amz-Signature=abc")).toBe(true);
    expect(egressAllows(scope, "PUT", "https://acct.r2.cloudflarestorage.com:443/b/out?X-Amz-Signature=def#x")).toBe(
      true,
    );
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

describe("admitting a job to an instance", () => {
  it("drops every other job's scope, keeping the admitted job's", () => {
    expect(staleScopeKeys(["egress-scope:old", "egress-scope:new", "egress-scope:older"], "egress-scope:new")).toEqual([
      "egress-scope:old",
      "egress-scope:older",
    ]);
    expect(staleScopeKeys([], "egress-scope:new")).toEqual([]);
  });
});

describe("a directory output's egress", () => {
  const prefix = "http://runner-files.ffjobs.internal/jobs/2c0d8a4e-0000-4000-8000-000000000001/hls/";
  const scope = egressScopeOf({
    jobId: "j",
    binary: "ffmpeg",
    args: [],
    timeoutMs: 1,
    allowedPrivateHosts: [],
    createdAt: "",
    leaseMs: 1,
    notifyUrl: null,
    inputs: [],
    outputs: [
      {
        name: "hls",
        fileName: "master.m3u8",
        contentType: "application/vnd.apple.mpegurl",
        uploadUrl: prefix,
        kind: "directory",
        uploadToken: "t",
      },
    ],
  });

  it("allows PUTs of plain file names under its prefix, nothing deeper, beside it or of another method", () => {
    expect(egressAllows(scope, "PUT", `${prefix}seg_0_000.ts`)).toBe(true);
    expect(egressAllows(scope, "PUT", `${prefix}sub/seg.ts`)).toBe(false);
    expect(egressAllows(scope, "PUT", `${prefix.replace("/hls/", "/other/")}seg.ts`)).toBe(false);
    expect(egressAllows(scope, "GET", `${prefix}seg_0_000.ts`)).toBe(false);
  });
});

describe("the egress of outputs sent to the user's storage", () => {
  const request = (outputs: RunnerJobRequest["outputs"]) =>
    egressScopeOf({
      jobId: "j",
      binary: "ffmpeg",
      args: [],
      timeoutMs: 1,
      allowedPrivateHosts: [],
      createdAt: "",
      leaseMs: 1,
      notifyUrl: null,
      inputs: [],
      outputs,
    });

  it("is a client's URL, checked where it leads: one PUT, or a multipart upload's part PUTs and its completion POST", () => {
    const one = request([
      {
        name: "o",
        fileName: "o.mp4",
        contentType: "video/mp4",
        uploadUrl: "https://bucket.example.com/o.mp4?X-Amz-Signature=s",
        destination: { headers: {} },
      },
    ]);
    expect(one.allow).toEqual([
      { method: "PUT", url: "https://bucket.example.com/o.mp4?X-Amz-Signature=s", external: true },
    ]);
    const complete = "https://bucket.example.com/o.mp4?uploadId=u&X-Amz-Signature=c";
    const parts = request([
      {
        name: "o",
        fileName: "o.mp4",
        contentType: "video/mp4",
        uploadUrl: complete,
        destination: {
          headers: {},
          parts: {
            urls: [
              "https://bucket.example.com/o.mp4?partNumber=1&uploadId=u",
              "https://bucket.example.com/o.mp4?partNumber=2&uploadId=u",
            ],
            partSizeBytes: 5 << 20,
            completeUrl: complete,
          },
        },
      },
    ]);
    expect(egressAllows(parts, "PUT", "https://bucket.example.com/o.mp4?partNumber=2&uploadId=u")).toBe(true);
    expect(egressAllows(parts, "PUT", "https://bucket.example.com/o.mp4?partNumber=3&uploadId=u")).toBe(false);
    expect(egressAllows(parts, "POST", complete)).toBe(true);
    expect(parts.allow.every((r) => r.external)).toBe(true);
  });

  it("for a directory, PUTs of plain file names under the prefix with the prefix's own query only", () => {
    const sas = "sv=2025-01-05&sr=c&sig=abc";
    const dir = request([
      {
        name: "hls",
        fileName: "index.m3u8",
        contentType: "application/vnd.apple.mpegurl",
        uploadUrl: `https://acct.blob.core.windows.net/media/job/?${sas}`,
        kind: "directory",
        destination: { headers: {} },
      },
    ]);
    expect(egressAllows(dir, "PUT", `https://acct.blob.core.windows.net/media/job/seg_000.ts?${sas}`)).toBe(true);
    expect(
      egressAllows(dir, "PUT", `https://acct.blob.core.windows.net/media/job/seg_000.ts?${sas}&comp=appendblock`),
    ).toBe(false);
    expect(egressAllows(dir, "PUT", "https://acct.blob.core.windows.net/media/job/seg_000.ts")).toBe(false);
    expect(egressAllows(dir, "PUT", `https://acct.blob.core.windows.net/media/job/deeper/seg.ts?${sas}`)).toBe(false);
    expect(egressAllows(dir, "PUT", `https://acct.blob.core.windows.net/media/job/?${sas}`)).toBe(false);
    expect(dir.allow[0].external).toBe(true);
  });
});
