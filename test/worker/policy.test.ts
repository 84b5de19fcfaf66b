import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("GET /v1/policy", () => {
  it("publishes the options, formats, filters, injected options and limits that are enforced", async () => {
    expect((await api(null, "GET", "/v1/policy")).status).toBe(401);
    const { body } = await api(account.key, "GET", "/v1/policy");
    expect(body.options.ffmpeg.withValue).toContain("filter_complex");
    expect(body.options.refused).toMatchObject({
      protocol_whitelist: expect.any(String),
      vstats_file: expect.any(String),
    });
    expect(body.formats.allowed).toContain("mp4");
    expect(body.formats.allowed).not.toContain("concat");
    expect(body.filters.allowed).toContain("scale");
    expect(body.filters.allowed).not.toContain("movie");
    expect(body.filters.sources.maxSeconds).toBe(3600);
    expect(body.injected.beforeEachInput).toContain("-protocol_whitelist");
    expect(body.limits).toMatchObject({
      args: 256,
      inputsPerJob: 16,
      maxActiveJobsPerAccount: 50,
      requestsPerMinutePerKey: 600,
    });
    expect(body.steps.max).toBe(8);
    expect(body.directoryOutputs).toMatchObject({
      maxFiles: 1000,
      plainNameOptions: ["master_pl_name", "hls_fmp4_init_filename"],
    });
    expect(body.directoryOutputs.hlsFlags).not.toContain("delete_segments");
    expect(body.formats.allowed).toContain("hls");
  });
});
