import { describe, expect, it } from "vitest";
import { buildArgv } from "../../src/jobs/runner-request/command-line.ts";

describe("command building", () => {
  it("resolves placeholders and puts the service's options after the client's, per file", () => {
    const path = (n: string) => `/job/${n}`;
    const argv = buildArgv("ffmpeg", ["-ss", "1", "-i", "{{in}}", "-c:v", "libx264", "{{out}}"], path, 1000);
    expect(argv.slice(0, 6)).toEqual(["-hide_banner", "-nostdin", "-y", "-nostats", "-progress", "pipe:3"]);
    const i = argv.indexOf("-i");
    expect(argv.slice(6, 8)).toEqual(["-ss", "1"]);
    expect(argv.slice(i - 6, i)).toEqual([
      "-protocol_whitelist",
      "file",
      "-format_whitelist",
      expect.stringContaining("mov,mp4"),
      "-max_pixels",
      "33177600",
    ]);
    expect(argv.slice(i, i + 2)).toEqual(["-i", "/job/in"]);
    expect(argv.slice(-3)).toEqual(["-fs", "1000", "/job/out"]);
    const probe = buildArgv("ffprobe", ["-show_format", "{{in}}"], path, 1000);
    expect(probe[0]).toBe("-hide_banner");
    expect(probe.slice(-7)).toEqual([
      "-protocol_whitelist",
      "file",
      "-format_whitelist",
      expect.any(String),
      "-max_pixels",
      "33177600",
      "/job/in",
    ]);
  });
});
