import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount } from "./helpers.ts";

let key: string;
beforeAll(async () => {
  ({ key } = await createAccount());
});

describe("GET /v1/capabilities", () => {
  it("lists what the runner's binaries can do, read from them, marked by the policy", async () => {
    expect((await api(null, "GET", "/v1/capabilities")).status).toBe(401);
    const { status, body } = await api(key, "GET", "/v1/capabilities");
    expect(status).toBe(200);
    expect(body.ffmpeg).toMatch(/^ffmpeg version \S+/);
    expect(body.ffprobe).toMatch(/^ffprobe version \S+/);
    const find = (list: any[], name: string) => list.find((x) => x.name === name);
    expect(find(body.encoders, "libx264")).toMatchObject({ type: "video", allowed: true });
    expect(find(body.decoders, "aac")).toMatchObject({ type: "audio", allowed: true });
    const hardware = body.encoders.find((e: any) => /_(vaapi|v4l2m2m|nvenc|qsv)$/.test(e.name));
    if (hardware) expect(hardware).toMatchObject({ allowed: false, reason: "needs a hardware device" });
    expect(find(body.muxers, "mp4").allowed).toBe(true);
    expect(find(body.muxers, "hls").allowed).toBe(true);
    expect(find(body.muxers, "rtp").allowed).toBe(false);
    expect(find(body.demuxers, "mov,mp4,m4a,3gp,3g2,mj2").allowed).toBe(true);
    expect(find(body.demuxers, "concat").allowed).toBe(false);
    expect(find(body.filters, "scale")).toMatchObject({ io: "V->V", allowed: true });
    expect(find(body.filters, "movie").allowed).toBe(false);
    expect(body.filters.length).toBeGreaterThan(300);
  });
});
