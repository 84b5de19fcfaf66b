import { z } from "zod";
import { definePreset } from "./preset.ts";

const seconds = z.number().min(0).max(24 * 3600);
const height = z.number().int().min(16).max(4320);

export const probePreset = definePreset({
  name: "probe",
  description: "ffprobe's JSON of the input's format and streams (in the result's `probe`).",
  binary: "ffprobe",
  inputs: ["video"],
  params: z.object({}).strict(),
  outputs: {},
  expand: () => ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{video}}"],
});

export const thumbnailPreset = definePreset({
  name: "thumbnail",
  description: "One JPEG frame at `at` seconds (default 1) or at `percent` of the video's length, scaled to `width`.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z
    .object({ at: seconds.optional(), percent: z.number().min(0).max(99).optional(), width: z.number().int().min(16).max(7680).default(320) })
    .strict()
    .refine((p) => p.at === undefined || p.percent === undefined, { path: ["percent"], message: "give `at` (seconds) or `percent`, not both" }),
  outputs: { thumbnail: { fileName: "thumbnail.jpg", contentType: "image/jpeg", kind: "file" } },
  expand: (p) => {
    // {{video@P%}}: the runner probes the video's length and writes the seconds in (src/jobs/placeholders.ts).
    const at = p.percent !== undefined ? `{{video@${Math.round(p.percent * 1000) / 1000}%}}` : String(p.at ?? 1);
    return ["-ss", at, "-i", "{{video}}", "-frames:v", "1", "-vf", `scale=${p.width}:-2`, "{{thumbnail}}"];
  },
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
  expand: (p) => [
    "-i", "{{video}}", "-vf", `select=not(mod(n\\,${p.everyFrames})),scale=${p.tileWidth}:-2,tile=${p.columns}x${p.rows}`,
    "-frames:v", "1", "-fps_mode", "vfr", "{{sheet}}",
  ],
});

export const webMp4Preset = definePreset({
  name: "web-mp4",
  description: "H.264/AAC MP4 for the web: `height` lines, quality `crf`, moov atom first.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z.object({ height: height.default(720), crf: z.number().int().min(0).max(51).default(23), speed: z.enum(["ultrafast", "veryfast", "fast", "medium", "slow"]).default("veryfast") }).strict(),
  outputs: { mp4: { fileName: "video.mp4", contentType: "video/mp4", kind: "file" } },
  expand: (p) => [
    "-i", "{{video}}", "-vf", `scale=-2:${p.height}`, "-c:v", "libx264", "-preset", p.speed, "-crf", String(p.crf), "-pix_fmt", "yuv420p",
    "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "{{mp4}}",
  ],
});

export const webmPreset = definePreset({
  name: "webm",
  description: "VP9/Opus WebM: `height` lines, quality `crf` (constant quality).",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z.object({ height: height.default(720), crf: z.number().int().min(0).max(63).default(33) }).strict(),
  outputs: { webm: { fileName: "video.webm", contentType: "video/webm", kind: "file" } },
  expand: (p) => [
    "-i", "{{video}}", "-vf", `scale=-2:${p.height}`, "-c:v", "libvpx-vp9", "-b:v", "0", "-crf", String(p.crf), "-deadline", "realtime",
    "-cpu-used", "8", "-row-mt", "1", "-c:a", "libopus", "-b:a", "96k", "{{webm}}",
  ],
});

export const gifPreset = definePreset({
  name: "gif",
  description: "An animated GIF with a palette made from the clip: `fps` frames a second, `width` wide, from `start` for `duration` s.",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z.object({ fps: z.number().int().min(1).max(30).default(10), width: z.number().int().min(16).max(1280).default(480), start: seconds.default(0), duration: z.number().min(0.1).max(60).default(5) }).strict(),
  outputs: { gif: { fileName: "animation.gif", contentType: "image/gif", kind: "file" } },
  expand: (p) => [
    "-ss", String(p.start), "-t", String(p.duration), "-i", "{{video}}",
    "-filter_complex", `fps=${p.fps},scale=${p.width}:-1:flags=lanczos,split[a][b];[a]palettegen[pal];[b][pal]paletteuse`, "{{gif}}",
  ],
});

export const trimPreset = definePreset({
  name: "trim",
  description: "The part from `start` lasting `duration` s, streams copied (no re-encoding; cuts land on key frames).",
  binary: "ffmpeg",
  inputs: ["video"],
  params: z.object({ start: seconds.default(0), duration: z.number().min(0.1).max(24 * 3600) }).strict(),
  outputs: { clip: { fileName: "clip.mp4", contentType: "video/mp4", kind: "file" } },
  expand: (p) => ["-ss", String(p.start), "-t", String(p.duration), "-i", "{{video}}", "-c", "copy", "-avoid_negative_ts", "make_zero", "{{clip}}"],
});

const corners = { "top-left": ["M", "M"], "top-right": ["W-w-M", "M"], "bottom-left": ["M", "H-h-M"], "bottom-right": ["W-w-M", "H-h-M"] } as const;

export const watermarkPreset = definePreset({
  name: "watermark",
  description: "The `logo` input laid over the `video` input in a corner, `margin` pixels in.",
  binary: "ffmpeg",
  inputs: ["video", "logo"],
  params: z.object({ position: z.enum(["top-left", "top-right", "bottom-left", "bottom-right"]).default("bottom-right"), margin: z.number().int().min(0).max(500).default(16) }).strict(),
  outputs: { watermarked: { fileName: "watermarked.mp4", contentType: "video/mp4", kind: "file" } },
  expand: (p) => {
    const [x, y] = corners[p.position].map((c) => c.replace("M", String(p.margin)));
    return ["-i", "{{video}}", "-i", "{{logo}}", "-filter_complex", `[0:v][1:v]overlay=${x}:${y}`, "-c:v", "libx264", "-preset", "veryfast", "-c:a", "copy", "{{watermarked}}"];
  },
});

export const concatPreset = definePreset({
  name: "concat",
  description: "The inputs (`input`, in order; each with video and audio) joined into one MP4.",
  binary: "ffmpeg",
  inputs: "list",
  params: z.object({}).strict(),
  outputs: { joined: { fileName: "joined.mp4", contentType: "video/mp4", kind: "file" } },
  expand: (_p, names) => [
    ...names.flatMap((n) => ["-i", `{{${n}}}`]),
    "-filter_complex", `${names.map((_, i) => `[${i}:v][${i}:a]`).join("")}concat=n=${names.length}:v=1:a=1[v][a]`,
    "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "{{joined}}",
  ],
});
