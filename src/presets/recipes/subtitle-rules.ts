import type { SubtitleFacts } from "../subtitle-facts.ts";
import type { Plan, PlanInput, RecipeContext, Refusal } from "./recipe.ts";

/*
 * Subtitles in presets: which track, and how the output's container holds it. Text tracks (SubRip,
 * ASS, WebVTT, MP4's timed text) convert between each other; bitmap tracks (PGS, DVB, DVD) are pictures:
 * Matroska keeps them, a picture can have them drawn in, and nothing else holds them.
 */

const noTrack = (preset: string, input: PlanInput, track: number): { refused: Refusal } => {
  const n = input.facts.subtitles.length;
  return {
    refused: {
      code: "INPUT_HAS_NO_SUBTITLES",
      message: `Preset ${preset} needs subtitle track ${track} of input "${input.name}", which has ${n ? `${n} (0 to ${n - 1})` : "none"}`,
    },
  };
};

const notText = (preset: string, input: PlanInput, track: number): { refused: Refusal } => ({
  refused: {
    code: "SUBTITLES_NOT_TEXT",
    message: `Preset ${preset} makes soft subtitles and track ${track} of input "${input.name}" is a bitmap (${input.facts.subtitles[track].codec}), not text: burn-subtitles draws it into the picture`,
  },
});

const unreadable = (preset: string, input: PlanInput, track: number): { refused: Refusal } => ({
  refused: {
    code: "INPUT_UNREADABLE",
    message: `Preset ${preset} cannot read subtitle track ${track} of input "${input.name}": its codec (${input.facts.subtitles[track].codec}) is not one this ffmpeg decodes`,
  },
});

/**
 * The input's subtitle track `track` (ffmpeg's `s:track`), or why there is none to use; `text`: soft output
 * needs text. A codec this ffmpeg cannot decode is refused whatever the use.
 */
export function needSubtitles(
  preset: string,
  input: PlanInput,
  track: number,
  text: boolean,
): { subtitle: SubtitleFacts } | { refused: Refusal } {
  const subtitle = input.facts.subtitles[track];
  if (!subtitle) return noTrack(preset, input, track);
  if (subtitle.kind === "unsupported") return unreadable(preset, input, track);
  if (text && subtitle.kind !== "text") return notText(preset, input, track);
  return { subtitle };
}

const extensionOf = (fileName: string) => fileName.slice(fileName.lastIndexOf(".") + 1).toLowerCase();

/**
 * An input's subtitle tracks in an output, as its container holds them (`-map`s and `-c:s`): MP4 and
 * MOV take text as timed text (mov_text), WebM as WebVTT, Matroska every track as it is; the tracks'
 * languages go with them. A bitmap track where only text fits is refused, as is an input without any;
 * a track this ffmpeg cannot decode is left out (Matroska too: ffmpeg cannot copy a codec it does not know).
 */
export function keptSubtitles(
  preset: string,
  input: PlanInput,
  inputIndex: number,
  fileName: string,
): { args: string[] } | { refused: Refusal } {
  const tracks = input.facts.subtitles;
  if (!tracks.length) return noTrack(preset, input, 0);
  const ext = extensionOf(fileName);
  const known = tracks.flatMap((t, k) => (t.kind === "unsupported" ? [] : [k]));
  if (!known.length) return unreadable(preset, input, 0);
  if (ext === "mkv" || ext === "mka")
    return { args: [...known.flatMap((k) => ["-map", `${inputIndex}:s:${k}`]), "-c:s", "copy"] };
  const text = tracks.flatMap((t, k) => (t.kind === "text" ? [k] : []));
  if (!text.length) return notText(preset, input, known[0]);
  const codec = ext === "webm" ? "webvtt" : "mov_text";
  return { args: [...text.flatMap((k) => ["-map", `${inputIndex}:s:${k}`]), "-c:s", codec] };
}

/** A colour "#RRGGBB" as ASS writes one: &H, alpha, then blue, green, red. */
export function assColour(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => hex.slice(at, at + 2).toUpperCase());
  return `&H00${b}${g}${r}`;
}

/** libass lays out SubRip and WebVTT on a 288-line script: sizes given as a share of the picture's height are scaled to it. */
const SCRIPT_HEIGHT = 288;

export type BurnStyle = {
  /** The text's height, in % of the picture's. */
  fontSize: number;
  color: string;
  outlineColor: string;
  position: "bottom" | "top";
  /** From the picture's edge, in % of its height. */
  margin: number;
};

/**
 * The style every subtitle is drawn in (`force_style`, over an ASS file's own): DejaVu Sans, which the
 * runner's image carries, outlined, centred at the bottom or the top. Only numbers and colours from the
 * preset's parameters go in.
 */
export function burnStyle(s: BurnStyle): string {
  const size = Math.round((s.fontSize / 100) * SCRIPT_HEIGHT * 10) / 10;
  return [
    "FontName=DejaVu Sans",
    `FontSize=${size}`,
    `PrimaryColour=${assColour(s.color)}`,
    `OutlineColour=${assColour(s.outlineColor)}`,
    "BorderStyle=1",
    `Outline=${Math.max(1, Math.round(size / 12))}`,
    "Shadow=0",
    // force_style takes SSA's legacy alignment (2 bottom centre, 6 top centre), whatever the script's version.
    `Alignment=${s.position === "top" ? 6 : 2}`,
    `MarginV=${Math.round((s.margin / 100) * SCRIPT_HEIGHT)}`,
  ].join(",");
}

/** A plan with the input's subtitle tracks kept in its output (subtitle-rules.ts), or the refusal that says why not. */
export function withKeptSubtitles(plan: Plan, preset: string, ctx: RecipeContext, fileName: string): Plan {
  if ("refused" in plan) return plan;
  const subtitles = keptSubtitles(preset, ctx.inputs[0], 0, fileName);
  if ("refused" in subtitles) return subtitles;
  return { ...plan, args: [...plan.args.slice(0, -1), ...subtitles.args, ...plan.args.slice(-1)] };
}
