import { describe, expect, it } from "vitest";
import { explainFailure } from "../../container/src/command.ts";

describe("the line that explains a failed command", () => {
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
    expect(explainFailure("Stream map '0:s' matches no streams.\nTo ignore this, add a trailing '?' to the map.")).toBe(
      "Stream map '0:s' matches no streams.",
    );
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
    expect(explainFailure(copyIntoMp4)).toBe(
      "Could not find tag for codec prores in stream #0, codec not currently supported in container",
    );
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
    expect(explainFailure(statistics.split("\n").slice(0, 2).join("\n"))).toMatch(
      /^flac in MP4 support is experimental/,
    );
    expect(explainFailure("")).toBeNull();
  });
});
