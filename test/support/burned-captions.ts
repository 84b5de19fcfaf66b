import { spawnSync } from "node:child_process";

/**
 * Where captions were burned into a picture, as a viewer would see them: the output's frame at
 * `atSeconds` against the same frame without captions (`reference`, scaled to the output's size), in a
 * band at the bottom (where captions are drawn) and one at the top (untouched). What counts is the share
 * of pixels whose brightness differs by more than a third of the range: text and its outline do, while a
 * tone-mapping, a deinterlacer or an encoder's softening (which differ a little everywhere) do not.
 */
export function captionBands(output: string, reference: string, atSeconds: number): { top: number; bottom: number } {
  const band = (y: string) => {
    // Both decoded from their start to the time (a seek into MPEG-TS can land past its only key frame).
    const at = `trim=start=${atSeconds},setpts=PTS-STARTPTS`;
    const graph = [
      `[0:v]${at}[o0]`,
      `[1:v]${at}[r0]`,
      "[r0][o0]scale2ref[r][o]",
      // A fifth of the height, even, so both crops come out the same size whatever the chroma layout.
      `[o]format=yuv444p,crop=iw:trunc(ih/10)*2:0:${y}[ob]`,
      `[r]format=yuv444p,crop=iw:trunc(ih/10)*2:0:${y}[rb]`,
      `[ob][rb]blend=all_mode=difference,lutyuv=y='if(gt(val,${STRONG_DIFFERENCE}),255,0)',signalstats,metadata=print:file=-`,
    ].join(";");
    const run = spawnSync(
      "ffmpeg",
      ["-v", "error", "-i", output, "-i", reference, "-lavfi", graph, "-frames:v", "1", "-f", "null", "-"],
      { encoding: "utf8" },
    );
    return Number(/lavfi\.signalstats\.YAVG=([\d.]+)/.exec(run.stdout)?.[1] ?? Number.NaN) / 255;
  };
  return { top: band("0"), bottom: band("ih-trunc(ih/10)*2") };
}

/** A luma difference (of 255) no re-encoding or tone-mapping of the same picture reaches, and drawn text does. */
const STRONG_DIFFERENCE = 96;
/** At least this share of the bottom band changed strongly: a short caption at 5 % of 240 lines changes about 1 %. */
const MIN_CAPTION_SHARE = 0.003;

/** What is wrong with a burned output's captions, or nothing: drawn at the bottom, nothing drawn at the top. */
export function problemsWithCaptions(output: string, reference: string, atSeconds: number): string[] {
  const { top, bottom } = captionBands(output, reference, atSeconds);
  const shares = `pixels changed strongly: top fifth ${(top * 100).toFixed(2)} %, bottom fifth ${(bottom * 100).toFixed(2)} %`;
  if (Number.isNaN(top) || Number.isNaN(bottom)) return [`not compared (${shares})`];
  return [
    ...(bottom < MIN_CAPTION_SHARE ? [`no caption at the bottom (${shares})`] : []),
    ...(top > bottom / 4 ? [`the top changed too: a caption in the wrong place? (${shares})`] : []),
  ];
}
