import { describe, expect, it } from "vitest";
import { unreachableUrlIssues } from "../../src/jobs/request/url-input-checks.ts";
import type { CreateJobRequest } from "../../src/api/schemas/job-request.ts";

const request = (inputs: Record<string, string>): CreateJobRequest => ({
  binary: "ffmpeg",
  inputs: Object.fromEntries(Object.entries(inputs).map(([n, url]) => [n, { type: "url" as const, url }])),
  ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
});

describe("URL inputs production's egress cannot reach", () => {
  it("are refused in container mode when they name a port other than the scheme's own", () => {
    const req = request({
      a: "http://media.example.com:8080/a.mp4",
      b: "https://media.example.com:80/b.mp4",
      c: "http://media.example.com:80/c.mp4",
      d: "https://media.example.com/d.mp4",
    });
    expect(unreachableUrlIssues(req, "container")).toEqual([
      {
        path: ["inputs", "a", "url"],
        message: "port 8080 cannot be reached: the service fetches http inputs only on port 80",
      },
      {
        path: ["inputs", "b", "url"],
        message: "port 80 cannot be reached: the service fetches https inputs only on port 443",
      },
    ]);
  });

  it("are refused in container mode when https names an IP address (the platform routes HTTPS by SNI)", () => {
    const req = request({
      a: "https://93.184.216.34/a.mp4",
      b: "https://[2606:2800:220:1::1]/b.mp4",
      c: "http://93.184.216.34/c.mp4",
    });
    expect(unreachableUrlIssues(req, "container").map((i) => [i.path[1], i.message])).toEqual([
      ["a", expect.stringContaining("https inputs need a host name")],
      ["b", expect.stringContaining("https inputs need a host name")],
    ]);
    expect(unreachableUrlIssues(req, "local")).toEqual([]);
  });

  it("point at the array index for the array form, and are fine with a local runner", () => {
    const req: CreateJobRequest = {
      binary: "ffprobe",
      input: [{ type: "url", url: "https://x.example:8443/a" }],
      ffmpegArgs: ["{{input0}}"],
    };
    expect(unreachableUrlIssues(req, "container").map((i) => i.path)).toEqual([["input", "0", "url"]]);
    expect(unreachableUrlIssues(req, "local")).toEqual([]);
  });
});
