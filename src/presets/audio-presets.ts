import { z } from "zod";
import { definePreset } from "./preset.ts";

const bitrateKbps = (fallback: number) => z.number().int().min(16).max(512).default(fallback);

/** The audio alone, re-encoded: one preset per codec, differing only in these. */
function audioExtraction(name: string, label: string, codec: string, fileName: string, contentType: string, kbps: number, extra: string[] = []) {
  return definePreset({
    name,
    description: `The audio as ${label} at \`bitrateKbps\`.`,
    binary: "ffmpeg",
    inputs: ["media"],
    params: z.object({ bitrateKbps: bitrateKbps(kbps) }).strict(),
    outputs: { audio: { fileName, contentType, kind: "file" } },
    expand: (p) => ["-i", "{{media}}", "-vn", "-c:a", codec, "-b:a", `${p.bitrateKbps}k`, ...extra, "{{audio}}"],
  });
}

export const mp3Preset = audioExtraction("audio-mp3", "MP3", "libmp3lame", "audio.mp3", "audio/mpeg", 192);
export const aacPreset = audioExtraction("audio-aac", "AAC in an M4A file", "aac", "audio.m4a", "audio/mp4", 160, ["-movflags", "+faststart"]);
export const opusPreset = audioExtraction("audio-opus", "Opus in an Ogg file", "libopus", "audio.opus", "audio/ogg", 96);

export const loudnessPreset = definePreset({
  name: "loudnorm",
  description: "Loudness normalized to EBU R128: integrated `target` LUFS, true peak `truePeak` dBTP, range `range` LU; video copied.",
  binary: "ffmpeg",
  inputs: ["media"],
  params: z
    .object({ target: z.number().min(-70).max(-5).default(-16), truePeak: z.number().min(-9).max(0).default(-1.5), range: z.number().min(1).max(50).default(11) })
    .strict(),
  outputs: { normalized: { fileName: "normalized.mp4", contentType: "video/mp4", kind: "file" } },
  expand: (p) => ["-i", "{{media}}", "-af", `loudnorm=I=${p.target}:TP=${p.truePeak}:LRA=${p.range}`, "-c:v", "copy", "-c:a", "aac", "-b:a", "192k", "{{normalized}}"],
});

export const waveformPreset = definePreset({
  name: "waveform",
  description: "A PNG picture of the audio's waveform, `width` × `height`, in `color`.",
  binary: "ffmpeg",
  inputs: ["media"],
  params: z
    .object({
      width: z.number().int().min(64).max(4096).default(1200),
      height: z.number().int().min(32).max(2048).default(240),
      color: z.string().regex(/^(#?[0-9A-Fa-f]{6}|[a-z]{3,20})$/, "a colour name or #RRGGBB").default("#3b82f6"),
    })
    .strict(),
  outputs: { picture: { fileName: "waveform.png", contentType: "image/png", kind: "file" } },
  expand: (p) => ["-i", "{{media}}", "-filter_complex", `showwavespic=s=${p.width}x${p.height}:colors=${p.color.replace("#", "0x")}`, "-frames:v", "1", "{{picture}}"],
});
