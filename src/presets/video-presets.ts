import { z } from "zod";
import { definePreset } from "./preset.ts";
import type { OutputChecks } from "../jobs/checks/output-checks.ts";

const seconds = z
  .number()
  .min(0)
  .max(24 * 3600);
const height = z.number().int().min(16).max(4320);

/** What every preset making an SDR picture says of HDR inputs (src/presets/recipes/tone-map.ts). */
export const HDR_TO_SDR =
  "An HDR input (PQ/HDR10 or HLG, BT.2020, with or without Dolby Vision side data) is tone-mapped to BT.709 SDR (zscale to linear light, tonemap=mobius) and tagged BT.709";

export const probePreset = definePreset({
  name: "probe",
  description: "ffprobe's JSON of the input's format and streams (in the result's `probe`).",
  binary: "ffprobe",
  inputs: ["video"],
  params: z.object({}).strict(),
  outputs: {},
  policy: "Any input ffprobe reads; the same command for every input.",
});

export const thumbnailPreset = definePreset({
  name: "thumbnail",
  description: "One JPEG frame at `at` seconds (default 1) or at `percent` of the video's length, scaled to `width`.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({
      at: seconds.optional(),
      percent: z.number().min(0).max(99).optional(),
      width: z.number().int().min(16).max(7680).default(320),
    })
    .strict()
    .refine((p) => p.at === undefined || p.percent === undefined, {
      path: ["percent"],
      message: "give `at` (seconds) or `percent`, not both",
    }),
  outputs: { thumbnail: { fileName: "thumbnail.jpg", contentType: "image/jpeg", kind: "file" } },
  policy: `Needs a video stream (cover art is not one): INPUT_HAS_NO_VIDEO otherwise. Upright whatever the rotation, deinterlaced when interlaced, square pixels at the picture's display aspect. ${HDR_TO_SDR}. A time past the end is taken as the middle; \`percent\` is of the input's own length. Inputs without a seek index (MPEG-TS): the runner first finds the key frame at or before the time (a demux of up to 30 s before it), seeks to just before it and decodes the rest of the way, so a frame is found however far apart key frames are.`,
});

export const contactSheetPreset = definePreset({
  name: "contact-sheet",
  description: "A grid of `columns` × `rows` frames, one every `everyFrames` frames, each `tileWidth` wide.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({
      columns: z.number().int().min(1).max(10).default(4),
      rows: z.number().int().min(1).max(10).default(4),
      everyFrames: z.number().int().min(1).max(10_000).default(30),
      tileWidth: z.number().int().min(16).max(1920).default(240),
    })
    .strict(),
  outputs: { sheet: { fileName: "sheet.jpg", contentType: "image/jpeg", kind: "file" } },
  policy: `Needs a video stream (INPUT_HAS_NO_VIDEO). Upright, deinterlaced when interlaced, tiles at the picture's display aspect. ${HDR_TO_SDR}.`,
});

/**
 * What a transcode of the whole input promises: it decodes to the end, it lasts as long as the input
 * (its longest video or audio stream, within a quarter second; not checked on a split encode, whose
 * join does not read the input), and its audio starts within a frame at 24 fps of its video (where it
 * has both).
 */
function playsAsTheInput(input: string, split: boolean): OutputChecks {
  return {
    streams: ["video"],
    fullDecode: true,
    ...(split ? {} : { durationSeconds: { asInput: input, toleranceSeconds: 0.25 } }),
    avSync: { maxStartDiffMs: 42 },
  };
}

/** Index first: an MP4 or MOV output (the preset's own name, or one the client gave it with that extension). */
const faststartOf = (fileName: string): OutputChecks => (/\.(mp4|m4v|mov)$/i.test(fileName) ? { faststart: true } : {});

export const webMp4Preset = definePreset({
  name: "web-mp4",
  description: "H.264/AAC MP4 for the web: at most `height` lines, quality `crf`, moov atom first.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({
      height: height.default(720),
      crf: z.number().int().min(0).max(51).default(23),
      speed: z.enum(["ultrafast", "veryfast", "fast", "medium", "slow"]).default("veryfast"),
      subtitles: z.boolean().default(false).describe("keep the input's text subtitle tracks, as MP4 timed text"),
    })
    .strict(),
  outputs: {
    mp4: {
      fileName: "video.mp4",
      contentType: "video/mp4",
      kind: "file",
      checks: (_, out) => ({
        ...playsAsTheInput("video", out.split),
        pixelFormat: "yuv420p",
        ...faststartOf(out.fileName),
      }),
    },
  },
  policy: `Needs a video stream (INPUT_HAS_NO_VIDEO: an audio file belongs in audio-aac). H.264 High, 8-bit 4:2:0 limited range, square pixels, even dimensions, at most \`height\` lines (never upscaled), upright, deinterlaced when interlaced; the frame rate is the input's. ${HDR_TO_SDR}: H.264 8-bit holds no HDR that browsers show (webm's \`hdr: "keep"\` does). The first audio track as AAC 128 kb/s, at most stereo, at the input's rate when standard else 48 kHz; no audio track when the input has none. With \`subtitles: true\` the input's text subtitle tracks are kept as MP4 timed text (mov_text), each with its language (INPUT_HAS_NO_SUBTITLES without any; SUBTITLES_NOT_TEXT when all are bitmaps: burn-subtitles draws them in); such a job cannot be split (\`parallel\` is a 400).`,
});

export const webmPreset = definePreset({
  name: "webm",
  description: "VP9/Opus WebM: at most `height` lines, quality `crf` (constant quality).",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({
      height: height.default(720),
      crf: z.number().int().min(0).max(63).default(33),
      hdr: z.enum(["sdr", "keep"]).default("sdr"),
    })
    .strict(),
  outputs: {
    webm: {
      fileName: "video.webm",
      contentType: "video/webm",
      kind: "file",
      // hdr "keep": 10-bit for an HDR input, 8-bit for an SDR one, so no one pixel format is promised.
      checks: (p, out) => ({
        ...playsAsTheInput("video", out.split),
        ...(p.hdr === "keep" ? {} : { pixelFormat: "yuv420p" }),
      }),
    },
  },
  policy: `Needs a video stream (INPUT_HAS_NO_VIDEO). VP9 8-bit 4:2:0, square pixels, even dimensions, at most \`height\` lines (never upscaled), upright, deinterlaced when interlaced. ${HDR_TO_SDR} by default; with \`hdr: "keep"\` it stays HDR as VP9 profile 2, 10-bit 4:2:0, tagged with its own transfer (PQ or HLG) and BT.2020, which Chrome, Edge and Firefox show as HDR: its mastering and content-light metadata are not carried (ffmpeg 5.1 does not hand them to the WebM muxer), so players assume 1000 nits; a Dolby Vision record is dropped (WebM holds none) and its HDR10 or HLG base layer kept. An SDR input stays 8-bit SDR. The first audio track as Opus 96 kb/s 48 kHz, at most stereo; none when the input has none.`,
});

export const gifPreset = definePreset({
  name: "gif",
  description:
    "An animated GIF with a palette made from the clip: `fps` frames a second, `width` wide, from `start` for `duration` s.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({
      fps: z.number().int().min(1).max(30).default(10),
      width: z.number().int().min(16).max(1280).default(480),
      start: seconds.default(0),
      duration: z.number().min(0.1).max(60).default(5),
    })
    .strict(),
  outputs: {
    gif: {
      fileName: "animation.gif",
      contentType: "image/gif",
      kind: "file",
      checks: () => ({ streams: ["video"], fullDecode: true }),
    },
  },
  policy: `Needs a video stream (INPUT_HAS_NO_VIDEO). Upright, deinterlaced when interlaced, square pixels. ${HDR_TO_SDR}. A start past the end writes no frame and the job fails with OUTPUT_EMPTY.`,
});

export const trimPreset = definePreset({
  name: "trim",
  description:
    "The part from `start` lasting `duration` s, streams copied where the output's container holds them (cuts then land on key frames).",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({
      start: seconds.default(0),
      duration: z
        .number()
        .min(0.1)
        .max(24 * 3600),
      subtitles: z
        .boolean()
        .default(false)
        .describe("keep the input's subtitle tracks, as the output's container holds them"),
    })
    .strict(),
  outputs: { clip: { fileName: "clip.mp4", contentType: "video/mp4", kind: "file" } },
  policy:
    "Needs video or audio. The first video and audio tracks are copied when the output's container holds their codec (by its file name: .mp4, .mov, .mkv, .webm); a codec it cannot hold is re-encoded: video as H.264 CRF 18 (8-bit 4:2:0), audio as AAC 192 kb/s (ProRes and PCM into .mp4, say; name the output clip.mov to keep them). From an input without a seek index (MPEG-TS) the runner first finds the key frame at or before `start` (a demux of up to 30 s before it) and the copy starts there; where none lies within 30 s the video is re-encoded, cut exactly (a copy would have no picture until the next key frame). A copied video keeps its HDR as it is (a Dolby Vision record too: MP4 and MOV get it with `-strict unofficial`); a re-encoded one is tone-mapped to SDR like every 8-bit output. Further tracks are left out, and subtitles unless `subtitles: true`: then every subtitle track is kept as the output's container holds it (.mkv: each as it is, bitmaps too; .mp4/.mov: text tracks as timed text; .webm: text as WebVTT), refused with INPUT_HAS_NO_SUBTITLES without any and SUBTITLES_NOT_TEXT when only bitmaps would have to become text.",
});

export const watermarkPreset = definePreset({
  name: "watermark",
  description: "The `logo` input laid over the `video` input in a corner, `margin` pixels in.",
  binary: "ffmpeg",
  inputs: ["video", "logo"],
  params: z
    .object({
      position: z.enum(["top-left", "top-right", "bottom-left", "bottom-right"]).default("bottom-right"),
      margin: z.number().int().min(0).max(500).default(16),
    })
    .strict(),
  outputs: { watermarked: { fileName: "watermarked.mp4", contentType: "video/mp4", kind: "file" } },
  policy: `Both inputs need a picture (INPUT_HAS_NO_VIDEO). H.264 8-bit 4:2:0, square pixels, even dimensions, upright, deinterlaced. ${HDR_TO_SDR}. As long as the video whatever the logo's length. The first audio track copied when MP4 holds it, else AAC.`,
});

export const concatPreset = definePreset({
  name: "concat",
  description: "The inputs (`input`, in order) joined into one MP4, whatever their sizes, frame rates and streams.",
  binary: "ffmpeg",
  inputs: "list",
  params: z.object({}).strict(),
  outputs: { joined: { fileName: "joined.mp4", contentType: "video/mp4", kind: "file" } },
  policy: `Every input needs video or audio. Each is made alike before joining: the first video input's size (others fitted inside, letterboxed) and frame rate (at most 60), square pixels, 8-bit 4:2:0 SDR, upright, deinterlaced, timestamps from zero; audio 48 kHz stereo. ${HDR_TO_SDR}. An input without video shows black for its length, one without audio is silent; with no video (or audio) in any input the output has none.`,
});
