import { describe, expect, it } from "vitest";
import { splitFactsOf, videoLengthSeconds } from "../../src/jobs/split/split-facts.ts";
import { mp4 } from "./split-job-fixtures.ts";

describe("what a plan reads of ffprobe", () => {
  it("takes the first video that is not cover art, its start, length and rate, and whether there is audio", () => {
    const facts = splitFactsOf({
      format: { format_name: "matroska,webm", start_time: "5.000000", duration: "20.500000" },
      streams: [
        { codec_type: "video", disposition: { attached_pic: 1 }, r_frame_rate: "90000/1", start_time: "0" },
        {
          codec_type: "video",
          disposition: { attached_pic: 0 },
          r_frame_rate: "25/1",
          avg_frame_rate: "0/0",
          start_time: "5.040000",
        },
        { codec_type: "audio", start_time: "5.000000" },
        { codec_type: "subtitle", codec_name: "subrip", start_time: "5.000000" },
        { codec_type: "subtitle", codec_name: "hdmv_pgs_subtitle", start_time: "5.000000" },
      ],
    });
    expect(facts).toEqual({
      format: "matroska,webm",
      formatStartSeconds: 5,
      formatDurationSeconds: 20.5,
      video: { startSeconds: 5.04, durationSeconds: null, frameRate: "25/1", averageFrameRate: "" },
      hasAudio: true,
      audioStartSeconds: 5,
      videoStreams: 1,
      audioStreams: 1,
      // Pictures (PGS) are not what one run into Matroska keeps by itself: text is.
      textSubtitleStreams: 1,
    });
    expect(splitFactsOf({ format: { format_name: "mp3" }, streams: [{ codec_type: "audio" }] })).toMatchObject({
      video: null,
      hasAudio: true,
    });
    expect(splitFactsOf(null)).toBeNull();
  });
});

describe("a split's video length", () => {
  it("is what the headers claim, unless the file's packets were measured to end sooner", () => {
    expect(videoLengthSeconds(mp4)).toBe(60.5);
    expect(videoLengthSeconds({ ...mp4, videoEndSeconds: null })).toBe(60.5);
    // Measured where the last packet ends: 13.5 s in, the video starting at 0.5 s.
    expect(videoLengthSeconds({ ...mp4, videoEndSeconds: 13.5 })).toBe(13);
    expect(
      videoLengthSeconds({ ...mp4, video: { ...mp4.video!, durationSeconds: 432000 }, videoEndSeconds: 13.5 }),
    ).toBe(13);
    // Never longer than claimed.
    expect(videoLengthSeconds({ ...mp4, videoEndSeconds: 100 })).toBe(60.5);
  });
});
