import { z } from "zod";
import { definePreset } from "./preset.ts";

const bitrateKbps = (fallback: number) => z.number().int().min(16).max(512).default(fallback);

export const mp3Preset = definePreset({
  name: "audio-mp3",
  description: "The audio as MP3 at `bitrateKbps`.",
  binary: "ffmpeg",
  inputs: ["media"],
  params: z.object({ bitrateKbps: bitrateKbps(192) }).strict(),
  outputs: { audio: { fileName: "audio.mp3", contentType: "audio/mpeg", kind: "file" } },
  expand: (p) => ["-i", "{{media}}", "-vn", "-c:a", "libmp3lame", "-b:a", `${p.bitrateKbps}k`, "{{audio}}"],
});

export const aacPreset = definePreset({
  name: "audio-aac",
  description: "The audio as AAC in an M4A file at `bitrateKbps`.",
  binary: "ffmpeg",
  inputs: ["media"],
  params: z.object({ bitrateKbps: bitrateKbps(160) }).strict(),
  outputs: { audio: { fileName: "audio.m4a", contentType: "audio/mp4", kind: "file" } },
  expand: (p) => ["-i", "{{media}}", "-vn", "-c:a", "aac", "-b:a", `${p.bitrateKbps}k`, "-movflags", "+faststart", "{{audio}}"],
});

export const opusPreset = definePreset({
  name: "audio-opus",
  description: "The audio as Opus in an Ogg file at `bitrateKbps`.",
  binary: "ffmpeg",
  inputs: ["media"],
  params: z.object({ bitrateKbps: bitrateKbps(96) }).strict(),
  outputs: { audio: { fileName: "audio.opus", contentType: "audio/ogg", kind: "file" } },
  expand: (p) => ["-i", "{{media}}", "-vn", "-c:a", "libopus", "-b:a", `${p.bitrateKbps}k`, "{{audio}}"],
});

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
