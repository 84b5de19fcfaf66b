import { copyOrEncode } from "./copy-or-encode.ts";
import { needVideo, planned, type Plan, type RecipeContext } from "./recipe.ts";
import { pictureSize, seconds } from "./stream-rules.ts";
import { toSdrFilters } from "./tone-map.ts";

const CORNERS = {
  "top-left": ["M", "M"],
  "top-right": ["W-w-M", "M"],
  "bottom-left": ["M", "H-h-M"],
  "bottom-right": ["W-w-M", "H-h-M"],
} as const;

export function watermarkRecipe(p: { position: keyof typeof CORNERS; margin: number }, ctx: RecipeContext): Plan {
  const [input, logo] = ctx.inputs;
  const need = needVideo("watermark", input);
  if ("refused" in need) return need;
  const picture = needVideo("watermark", logo);
  if ("refused" in picture) return picture;
  const [x, y] = CORNERS[p.position].map((c) => c.replace("M", String(p.margin)));
  const { width, height } = pictureSize(need.video, null);
  const base = [
    ...(need.video.interlaced ? ["yadif=mode=send_frame"] : []),
    `scale=${width}:${height}`,
    "setsar=1",
    ...toSdrFilters(need.video),
  ].join(",");
  const a = input.facts.audio;
  return planned([
    "-i",
    `{{${input.name}}}`,
    "-i",
    `{{${logo.name}}}`,
    // eof_action=repeat: a still logo stays for the whole video. The output lasts as long as the longer
    // input (overlay's `shortest` would end it after a still logo's one frame), so -t holds it to the video's.
    "-filter_complex",
    `[0:V:0]${base}[base];[base][1:V:0]overlay=${x}:${y}:eof_action=repeat,format=yuv420p[v]`,
    ...(input.facts.durationSeconds !== null ? ["-t", seconds(input.facts.durationSeconds)] : []),
    "-map",
    "[v]",
    ...(a ? ["-map", "0:a:0"] : []),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    ...(a ? copyOrEncode(ctx.outputs.watermarked, null, a.codec) : []),
    "-movflags",
    "+faststart",
    "{{watermarked}}",
  ]);
}
