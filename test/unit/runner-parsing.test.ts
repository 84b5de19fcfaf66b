import { describe, expect, it } from "vitest";
import { createHeadBuffer, createTailBuffer } from "../../container/src/bounded-text.ts";
import { explainFailure } from "../../container/src/command.ts";
import { buildArgv } from "../../src/jobs/runner-request/command-line.ts";
import { createProgressParser } from "../../container/src/progress.ts";
import { summarizeProbe } from "../../container/src/probe.ts";
import type { RunnerProgress } from "../../src/runner/runner-protocol.ts";

describe("ffmpeg -progress parsing", () => {
  it("emits one figure per block, split across chunks, with a percentage when the duration is known", () => {
    const seen: RunnerProgress[] = [];
    const feed = createProgressParser(10, (p) => seen.push(p));
    feed("frame=10\nout_time_us=2500000\nspe");
    feed("ed=2.5x\nprogress=continue\nout_time_us=N/A\nspeed=N/A\nprogress=continue\n");
    feed("frame=240\nout_time_us=10000000\nspeed=3x\nprogress=end\n");
    expect(seen).toEqual([
      { percent: 25, outTimeSeconds: 2.5, speed: 2.5, frames: 10 },
      { percent: null, outTimeSeconds: null, speed: null, frames: null },
      { percent: 100, outTimeSeconds: 10, speed: 3, frames: 240 },
    ]);
  });

  it("never reports 100% before the end", () => {
    const seen: RunnerProgress[] = [];
    createProgressParser(1, (p) => seen.push(p))("out_time_us=5000000\nprogress=continue\n");
    expect(seen[0].percent).toBe(99.9);
  });
});

describe("bounded output", () => {
  it("keeps the head of stdout and says it cut", () => {
    const b = createHeadBuffer(5);
    b.push(Buffer.from("abc"));
    b.push(Buffer.from("defgh"));
    expect(b.text()).toBe("abcde\n[output truncated]");
  });

  it("keeps the tail of stderr", () => {
    const b = createTailBuffer(4);
    b.push(Buffer.from("12345"));
    b.push(Buffer.from("67"));
    expect(b.text()).toBe("[earlier output dropped]\n4567");
  });
});

describe("command building", () => {
  it("resolves placeholders and puts the service's options after the client's, per file", () => {
    const path = (n: string) => `/job/${n}`;
    const argv = buildArgv("ffmpeg", ["-ss", "1", "-i", "{{in}}", "-c:v", "libx264", "{{out}}"], path, 1000);
    expect(argv.slice(0, 6)).toEqual(["-hide_banner", "-nostdin", "-y", "-nostats", "-progress", "pipe:3"]);
    const i = argv.indexOf("-i");
    expect(argv.slice(6, 8)).toEqual(["-ss", "1"]);
    expect(argv.slice(i - 6, i)).toEqual(["-protocol_whitelist", "file", "-format_whitelist", expect.stringContaining("mov,mp4"), "-max_pixels", "33177600"]);
    expect(argv.slice(i, i + 2)).toEqual(["-i", "/job/in"]);
    expect(argv.slice(-3)).toEqual(["-fs", "1000", "/job/out"]);
    const probe = buildArgv("ffprobe", ["-show_format", "{{in}}"], path, 1000);
    expect(probe[0]).toBe("-hide_banner");
    expect(probe.slice(-7)).toEqual(["-protocol_whitelist", "file", "-format_whitelist", expect.any(String), "-max_pixels", "33177600", "/job/in"]);
  });

  it("finds the line that explains a failure, not the generic trailer", () => {
    expect(explainFailure("a\n\nUnknown encoder 'nope'\n  \n")).toBe("Unknown encoder 'nope'");
    const filterFailure = [
      "  Stream #0:1 -> #0:1 (aac (native) -> pcm_s16le (native))",
      "[AVFilterGraph @ 0x55c90d0c3f40] No such filter: 'no_such_filter'",
      "Error reinitializing filters!",
      "Failed to inject frame into filter network: Invalid argument",
      "Conversion failed!",
    ].join("\n");
    expect(explainFailure(filterFailure)).toBe("No such filter: 'no_such_filter'");
    expect(explainFailure("Stream map '0:s' matches no streams.\nTo ignore this, add a trailing '?' to the map.")).toBe("Stream map '0:s' matches no streams.");
    expect(explainFailure("just some text")).toBe("just some text");
  });

  it("names ffmpeg's real reason, not the line that says an output could not start (stderr of ffmpeg 5.1)", () => {
    const copyIntoMp4 = [
      "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'prores-pcm.mov':",
      "[mp4 @ 0x5600cfb77580] Could not find tag for codec prores in stream #0, codec not currently supported in container",
      "Could not write header for output file #0 (incorrect codec parameters ?): Invalid argument",
      "Error initializing output stream 0:1 -- ",
      "Stream mapping:",
      "  Stream #0:0 -> #0:0 (copy)",
      "    Last message repeated 1 times",
    ].join("\n");
    expect(explainFailure(copyIntoMp4)).toBe("Could not find tag for codec prores in stream #0, codec not currently supported in container");
    const oddSize = [
      "Stream mapping:",
      "  Stream #0:0 -> #0:0 (rawvideo (native) -> h264 (libx264))",
      "[libx264 @ 0x564f602b2900] width not divisible by 2 (241x135)",
      "Error initializing output stream 0:0 -- Error while opening encoder for output stream #0:0 - maybe incorrect parameters such as bit_rate, rate, width or height",
      "Conversion failed!",
    ].join("\n");
    expect(explainFailure(oddSize)).toBe("width not divisible by 2 (241x135)");
    const statistics = [
      "[mp4 @ 0x1] flac in MP4 support is experimental, add '-strict -2' if you want to use it.",
      "video:0kB audio:0kB subtitle:0kB other streams:0kB global headers:0kB muxing overhead: unknown",
      "Output file is empty, nothing was encoded",
    ].join("\n");
    expect(explainFailure(statistics)).toBe("Output file is empty, nothing was encoded");
    expect(explainFailure(statistics.split("\n").slice(0, 2).join("\n"))).toMatch(/^flac in MP4 support is experimental/);
    expect(explainFailure("")).toBeNull();
  });
});

describe("probe summary", () => {
  it("keeps format, duration, size, bit rate and per-stream essentials", () => {
    const summary = summarizeProbe(
      {
        format: { format_name: "mov,mp4", duration: "3.000000", bit_rate: "121805" },
        streams: [
          { index: 0, codec_type: "video", codec_name: "h264", width: 320, height: 240, avg_frame_rate: "25/1" },
          { index: 1, codec_type: "audio", codec_name: "aac", sample_rate: "44100", channels: 1 },
        ],
      },
      45677,
    );
    expect(summary).toEqual({
      format: "mov,mp4", durationSeconds: 3, size: 45677, bitRate: 121805,
      streams: [
        { index: 0, type: "video", codec: "h264", width: 320, height: 240, frameRate: 25 },
        { index: 1, type: "audio", codec: "aac", sampleRate: 44100, channels: 1 },
      ],
    });
    expect(summarizeProbe(null, 1)).toBeNull();
  });
});
