import { describe, expect, it } from "vitest";
import { refusedPath, relayedHeaders } from "../../scripts/dev-front-door.ts";

describe("the local stack's front door", () => {
  it("hands miniflare's storage endpoint the name a URL was signed for, behind a loopback Host it accepts", () => {
    expect(
      relayedHeaders("/cdn-cgi/local/r2/s3/bucket/key?X-Amz-Signature=x", {
        host: "api.ffjobs-lab.test",
        "if-none-match": "*",
      }),
    ).toEqual({
      host: "127.0.0.1",
      "mf-original-hostname": "api.ffjobs-lab.test",
      "if-none-match": "*",
    });
    // Served on loopback already, or not storage: as sent.
    expect(relayedHeaders("/cdn-cgi/local/r2/s3/bucket/key", { host: "127.0.0.1:8787" })).toEqual({
      host: "127.0.0.1:8787",
    });
    expect(relayedHeaders("/v1/jobs", { host: "api.ffjobs-lab.test" })).toEqual({ host: "api.ffjobs-lab.test" });
  });

  it("never passes a client's miniflare headers on", () => {
    expect(
      relayedHeaders("/v1/jobs", {
        host: "127.0.0.1",
        "mf-original-hostname": "evil.example",
        "mf-route-override": "x",
      }),
    ).toEqual({ host: "127.0.0.1" });
    expect(
      relayedHeaders("/cdn-cgi/local/r2/s3/b/k", {
        host: "api.ffjobs-lab.test",
        "mf-original-hostname": "evil.example",
      })["mf-original-hostname"],
    ).toBe("api.ffjobs-lab.test");
  });

  it("refuses miniflare's own endpoints other than the S3 API, however spelled", () => {
    expect(refusedPath("/cdn-cgi/local/r2/public/bucket/key")).toBe(true);
    expect(refusedPath("/cdn-cgi/local/r2/s3/bucket/key")).toBe(false);
  });
});
