import type { Plan, Recipe, RecipeContext } from "./recipe.ts";
import type { InputQuestion } from "./input-questions.ts";
import {
  contactSheetRecipe,
  gifQuestions,
  gifRecipe,
  thumbnailQuestions,
  thumbnailRecipe,
  webMp4Recipe,
  webmRecipe,
} from "./video-recipes.ts";
import { audioExtractionRecipe, loudnessQuestions, loudnessRecipe, waveformRecipe } from "./audio-recipes.ts";
import { hlsLadderRecipe } from "./hls-ladder-recipe.ts";
import { concatRecipe } from "./concat-recipe.ts";
import { trimQuestions, trimRecipe } from "./trim-recipe.ts";
import { watermarkRecipe } from "./watermark-recipe.ts";
import { burnSubtitlesRecipe, subtitlesVttRecipe } from "./subtitle-recipes.ts";
import { ownValue } from "../../own-key.ts";

/** How many channels each audio extraction keeps (MP3 holds two); the catalogue's policy text reads it. */
export const AUDIO_EXTRACTION_CHANNELS = { "audio-mp3": 2, "audio-aac": 8, "audio-opus": 8 } as const;

// biome-ignore lint/suspicious/noExplicitAny: each recipe takes its own preset's params, checked by that preset's schema in the Worker (src/presets/catalog.ts) before they get here.
type PresetParams = any;

/**
 * Every preset's recipe by preset name. `looksAtInputs`: the runner probes the inputs and plans the
 * command from what they are before it runs (all but `probe`, whose command is the same for any input).
 */
export const RECIPE_BOOK: Record<
  string,
  {
    plan: Recipe<PresetParams>;
    looksAtInputs: boolean;
    /** What it asks of its inputs beyond their probe (input-questions.ts), answered by the runner before it plans. */
    asks?: (params: PresetParams, ctx: RecipeContext) => InputQuestion[];
  }
> = {
  probe: {
    plan: (_p, ctx) => ({
      args: ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", `{{${ctx.inputs[0].name}}}`],
    }),
    looksAtInputs: false,
  },
  thumbnail: { plan: thumbnailRecipe, looksAtInputs: true, asks: thumbnailQuestions },
  "contact-sheet": { plan: contactSheetRecipe, looksAtInputs: true },
  "web-mp4": { plan: webMp4Recipe, looksAtInputs: true },
  webm: { plan: webmRecipe, looksAtInputs: true },
  gif: { plan: gifRecipe, looksAtInputs: true, asks: gifQuestions },
  trim: { plan: trimRecipe, looksAtInputs: true, asks: trimQuestions },
  watermark: { plan: watermarkRecipe, looksAtInputs: true },
  concat: { plan: concatRecipe, looksAtInputs: true },
  "audio-mp3": {
    plan: audioExtractionRecipe("audio-mp3", "libmp3lame", AUDIO_EXTRACTION_CHANNELS["audio-mp3"]),
    looksAtInputs: true,
  },
  "audio-aac": {
    plan: audioExtractionRecipe("audio-aac", "aac", AUDIO_EXTRACTION_CHANNELS["audio-aac"], [
      "-movflags",
      "+faststart",
    ]),
    looksAtInputs: true,
  },
  "audio-opus": {
    plan: audioExtractionRecipe("audio-opus", "libopus", AUDIO_EXTRACTION_CHANNELS["audio-opus"]),
    looksAtInputs: true,
  },
  loudnorm: { plan: loudnessRecipe, looksAtInputs: true, asks: loudnessQuestions },
  waveform: { plan: waveformRecipe, looksAtInputs: true },
  "hls-ladder": { plan: hlsLadderRecipe, looksAtInputs: true },
  "subtitles-vtt": { plan: subtitlesVttRecipe, looksAtInputs: true },
  "burn-subtitles": { plan: burnSubtitlesRecipe, looksAtInputs: true },
};

export function planPreset(name: string, params: unknown, ctx: RecipeContext): Plan {
  const recipe = ownValue(RECIPE_BOOK, name);
  if (!recipe) throw new Error(`no recipe for preset ${name}`);
  return recipe.plan(params, ctx);
}
