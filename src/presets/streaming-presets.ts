import { z } from "zod";
import { definePreset } from "./preset.ts";
import { HDR_TO_SDR } from "./video-presets.ts";

export const hlsLadderPreset = definePreset({
  name: "hls-ladder",
  description:
    "An HLS ladder: one H.264/AAC rendition per height in `renditions` (leaving out audio when the input has none, or `audio: false`), `segmentSeconds`-long " +
    "segments, a master playlist (the output's URL) naming every variant. Plays from the output's download URL.",
  binary: "ffmpeg",
  inputs: ["video"],
  optionalInputs: ["subtitles"],
  params: z
    .object({
      renditions: z.array(z.number().int().min(144).max(2160)).min(1).max(6).default([360, 720]),
      segmentSeconds: z.number().int().min(1).max(20).default(4),
      /** false: renditions carry video only, even when the input has sound (inputs without sound never get audio). */
      audio: z.boolean().default(true),
      /** true: a WebVTT subtitle rendition from the input's first text track (a `subtitles` input gives one anyway). */
      subtitles: z.boolean().default(false),
    })
    .strict()
    .refine((p) => new Set(p.renditions).size === p.renditions.length, {
      path: ["renditions"],
      message: "each height once",
    }),
  outputs: { hls: { fileName: "master.m3u8", contentType: "application/vnd.apple.mpegurl", kind: "directory" } },
  policy: `Needs a video stream (INPUT_HAS_NO_VIDEO). Renditions taller than the input are left out (one at the input's height if all are). H.264 8-bit 4:2:0, square pixels, even dimensions, upright, deinterlaced; a key frame at every segment boundary whatever the frame rate. Audio (AAC 128 kb/s stereo, standard rate) in every rendition when the input has some and \`audio\` is not false. ${HDR_TO_SDR}: H.264 8-bit carries no HDR that browsers show. Subtitles as a WebVTT rendition named in the master playlist (EXT-X-MEDIA TYPE=SUBTITLES, with the track's language), which hls.js and Safari offer as captions: from the \`subtitles\` input when given (an .srt, .vtt or .ass file), else with \`subtitles: true\` from the input's first text track (INPUT_HAS_NO_SUBTITLES without one; SUBTITLES_NOT_TEXT when its tracks are bitmaps). Each variant names its own copy of the rendition (ffmpeg 5.1's HLS muxer writes one per variant).`,
});
