import { z } from "zod";
import { definePreset } from "./preset.ts";
import { AUDIO_EXTRACTION_CHANNELS } from "./recipes/recipe-book.ts";
import { ownValue } from "../own-key.ts";

const bitrateKbps = (fallback: number) => z.number().int().min(16).max(512).default(fallback);

/** The audio alone, re-encoded: one preset per codec, differing only in these. */
function audioExtraction(
  name: keyof typeof AUDIO_EXTRACTION_CHANNELS,
  label: string,
  fileName: string,
  contentType: string,
  kbps: number,
) {
  const maxChannels = ownValue(AUDIO_EXTRACTION_CHANNELS, name);
  return definePreset({
    name,
    description: `The audio as ${label} at \`bitrateKbps\`.`,
    binary: "ffmpeg",
    inputs: ["media"],
    params: z.object({ bitrateKbps: bitrateKbps(kbps) }).strict(),
    outputs: {
      audio: { fileName, contentType, kind: "file", checks: () => ({ streams: ["audio"], fullDecode: true }) },
    },
    policy: `Needs an audio stream (INPUT_HAS_NO_AUDIO). The first audio track, at the input's rate when standard (8 to 48 kHz) else 48 kHz${maxChannels === 2 ? ", at most stereo" : ""}; video and cover art left out.`,
  });
}

export const mp3Preset = audioExtraction("audio-mp3", "MP3", "audio.mp3", "audio/mpeg", 192);
export const aacPreset = audioExtraction("audio-aac", "AAC in an M4A file", "audio.m4a", "audio/mp4", 160);
export const opusPreset = audioExtraction("audio-opus", "Opus in an Ogg file (48 kHz)", "audio.opus", "audio/ogg", 96);

export const loudnessPreset = definePreset({
  name: "loudnorm",
  description:
    "Loudness normalized to EBU R128 in two passes: integrated `target` LUFS, true peak at most `truePeak` dBTP (range `range` LU where it must compress); video copied.",
  binary: "ffmpeg",
  inputs: ["media"],
  params: z
    .object({
      target: z.number().min(-70).max(-5).default(-16),
      truePeak: z.number().min(-9).max(0).default(-1.5),
      range: z.number().min(1).max(50).default(11),
    })
    .strict(),
  outputs: {
    normalized: {
      fileName: "normalized.mp4",
      contentType: "video/mp4",
      kind: "file",
      // The target it promises, within a loudness unit, and the ceiling, measured on the encoded file.
      checks: (p) => ({
        streams: ["audio"],
        loudness: { integratedLufs: p.target as number, toleranceLu: 1, truePeakMaxDbtp: p.truePeak as number },
      }),
    },
  },
  policy:
    "Needs an audio stream (INPUT_HAS_NO_AUDIO). Two passes: the runner measures the first audio track (loudnorm's first pass), then applies one linear gain to `target` wherever that keeps the true peak 0.5 dB under `truePeak` (headroom for the AAC encode), so the dynamics stay the input's; only where it would not does loudnorm's dynamic mode run, told the measures, compressing toward `range` and limiting. A silent input (below EBU R128's −70 LUFS gate) is refused with INPUT_SILENT once measured; one measuring louder than loudnorm's second pass takes (over 0 LUFS) where a gain would clip runs loudnorm in one pass. The job's `presetReport.loudness` has the mode, why, and the loudness and true peak before and after. Material whose peaks stand more than ~20 dB over its loudness (sparse percussion) can land short of the target in dynamic mode, which the output's check then reports. The first audio track as AAC 192 kb/s at the input's rate when standard, else 48 kHz. The first video copied when MP4 holds its codec, else H.264 CRF 18; none for audio files (cover art left out).",
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
      color: z
        .string()
        .regex(/^(#?[0-9A-Fa-f]{6}|[a-z]{3,20})$/, "a colour name or #RRGGBB")
        .default("#3b82f6"),
    })
    .strict(),
  outputs: { picture: { fileName: "waveform.png", contentType: "image/png", kind: "file" } },
  policy: "Needs an audio stream (INPUT_HAS_NO_AUDIO); draws the first audio track.",
});
