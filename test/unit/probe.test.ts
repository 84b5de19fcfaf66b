import { describe, expect, it } from "vitest";
import { summarizeProbe } from "../../container/src/probe.ts";

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
      format: "mov,mp4",
      durationSeconds: 3,
      size: 45677,
      bitRate: 121805,
      streams: [
        { index: 0, type: "video", codec: "h264", width: 320, height: 240, frameRate: 25 },
        { index: 1, type: "audio", codec: "aac", sampleRate: 44100, channels: 1 },
      ],
    });
    expect(summarizeProbe(null, 1)).toBeNull();
  });
});
