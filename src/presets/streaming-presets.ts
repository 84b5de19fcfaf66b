import { z } from "zod";
import { definePreset } from "./preset.ts";

export const hlsLadderPreset = definePreset({
  name: "hls-ladder",
  description:
    "An HLS ladder: one H.264/AAC rendition per height in `renditions` (leaving out audio when the input has none, or `audio: false`), `segmentSeconds`-long " +
    "segments, a master playlist (the output's URL) naming every variant. Plays from the output's download URL.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({
      renditions: z.array(z.number().int().min(144).max(2160)).min(1).max(6).default([360, 720]),
      segmentSeconds: z.number().int().min(1).max(20).default(4),
      /** false: renditions carry video only, even when the input has sound (inputs without sound never get audio). */
      audio: z.boolean().default(true),
    })
    .strict()
    .refine((p) => new Set(p.renditions).size === p.renditions.length, {
      path: ["renditions"],
      message: "each height once",
    }),
  outputs: { hls: { fileName: "master.m3u8", contentType: "application/vnd.apple.mpegurl", kind: "directory" } },
  policy:
    "Needs a video stream (INPUT_HAS_NO_VIDEO). Renditions taller than the input are left out (one at the input's height if all are). H.264 8-bit 4:2:0, square pixels, even dimensions, upright, deinterlaced; a key frame at every segment boundary whatever the frame rate. Audio (AAC 128 kb/s stereo, standard rate) in every rendition when the input has some and `audio` is not false.",
});
