import { z } from "zod";
import type { Preset } from "./preset.ts";
import { aacPreset, loudnessPreset, mp3Preset, opusPreset, waveformPreset } from "./audio-presets.ts";
import {
  concatPreset,
  contactSheetPreset,
  gifPreset,
  probePreset,
  thumbnailPreset,
  trimPreset,
  watermarkPreset,
  webMp4Preset,
  webmPreset,
} from "./video-presets.ts";
import { hlsLadderPreset } from "./streaming-presets.ts";
import { burnSubtitlesPreset, subtitlesVttPreset } from "./subtitle-presets.ts";

/** Every preset, by name. */
export const PRESETS: ReadonlyMap<string, Preset> = new Map(
  [
    probePreset,
    thumbnailPreset,
    contactSheetPreset,
    webMp4Preset,
    webmPreset,
    gifPreset,
    trimPreset,
    watermarkPreset,
    concatPreset,
    mp3Preset,
    aacPreset,
    opusPreset,
    loudnessPreset,
    waveformPreset,
    hlsLadderPreset,
    subtitlesVttPreset,
    burnSubtitlesPreset,
  ].map((p) => [p.name, p]),
);

/** A preset as `GET /v1/presets` shows it: its parameters as JSON Schema, with defaults. */
export function presetView(p: Preset) {
  return {
    name: p.name,
    description: p.description,
    binary: p.binary,
    inputs: p.inputs === "list" ? { list: "input: [ … ] (input0, input1, …), at least 2" } : p.inputs,
    optionalInputs: p.optionalInputs ?? [],
    params: z.toJSONSchema(p.params, { io: "input", unrepresentable: "any" }),
    outputs: Object.fromEntries(
      Object.entries(p.outputs).map(([name, { checks, ...o }]) => {
        const defaults = p.params.safeParse({});
        const params = defaults.success ? (defaults.data as Record<string, unknown>) : {};
        return [name, { ...o, checks: checks?.(params, { fileName: o.fileName, split: false }) ?? null }];
      }),
    ),
    policy: p.policy,
  };
}
