import { z } from "zod";
import { definePreset } from "./preset.ts";

/** The bitrate a rendition gets, by its height (H.264, for typical web content). */
function videoKbps(height: number): number {
  return Math.round(Math.max(200, (height * height) / 250));
}

export const hlsLadderPreset = definePreset({
  name: "hls-ladder",
  description:
    "An HLS ladder: one H.264/AAC rendition per height in `renditions` (`audio: false` for silent inputs), `segmentSeconds`-long " +
    "segments, a master playlist (the output's URL) naming every variant. Plays from the output's download URL.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({
      renditions: z.array(z.number().int().min(144).max(2160)).min(1).max(6).default([360, 720]),
      segmentSeconds: z.number().int().min(1).max(20).default(4),
      /** false for inputs without sound (each rendition then carries video only). */
      audio: z.boolean().default(true),
    })
    .strict()
    .refine((p) => new Set(p.renditions).size === p.renditions.length, { path: ["renditions"], message: "each height once" }),
  outputs: { hls: { fileName: "master.m3u8", contentType: "application/vnd.apple.mpegurl", kind: "directory" } },
  expand: (p) => {
    const n = p.renditions.length;
    const split = `[0:v]split=${n}${p.renditions.map((_, i) => `[s${i}]`).join("")}`;
    const scales = p.renditions.map((h, i) => `[s${i}]scale=-2:${h}[v${i}]`);
    return [
      "-i", "{{video}}", "-filter_complex", [split, ...scales].join(";"),
      ...p.renditions.flatMap((h, i) => ["-map", `[v${i}]`, ...(p.audio ? ["-map", "0:a:0"] : []), `-b:v:${i}`, `${videoKbps(h)}k`, `-maxrate:v:${i}`, `${Math.round(videoKbps(h) * 1.2)}k`, `-bufsize:v:${i}`, `${videoKbps(h) * 2}k`]),
      "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", String(p.segmentSeconds * 30), "-sc_threshold", "0",
      ...(p.audio ? ["-c:a", "aac", "-b:a", "128k", "-ac", "2"] : []),
      "-f", "hls", "-hls_time", String(p.segmentSeconds), "-hls_playlist_type", "vod", "-hls_flags", "independent_segments",
      "-var_stream_map", p.renditions.map((_, i) => (p.audio ? `v:${i},a:${i}` : `v:${i}`)).join(" "), "-master_pl_name", "master.m3u8",
      "-hls_segment_filename", "{{hls/seg_%v_%03d.ts}}", "{{hls/stream_%v.m3u8}}",
    ];
  },
});
