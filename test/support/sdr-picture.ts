import { execFileSync } from "node:child_process";
import { ffprobeJson } from "./media-fixtures.ts";

/**
 * An HDR input's SDR output as a viewer would judge it, beside an SDR rendering of the same pictures
 * (the reference the HDR test media were made from): its colour tags say BT.709, and its picture keeps
 * the reference's contrast and colour. An HDR signal kept as 8-bit code values looks flat, grey and
 * washed out: on the tests' media it keeps 39 % of the reference's contrast and 22 % of its saturation,
 * where a tone-mapping keeps about 90 %.
 */
export type PictureStats = { contrast: number; saturation: number; meanLuma: number };

/** Contrast kept at least this share of the reference's (the spread between the 10th and 90th luma percentiles). */
export const MIN_CONTRAST_SHARE = 0.75;
/** Saturation kept at least this share of the reference's (signalstats' mean chroma distance). */
export const MIN_SATURATION_SHARE = 0.7;

/** Every frame's signalstats, averaged, at a common size and limited range (a JPEG's full range compares too). */
export function pictureStats(file: string): PictureStats {
  const out = execFileSync(
    "ffmpeg",
    [
      "-v",
      "error",
      "-i",
      file,
      "-map",
      "0:V:0",
      "-vf",
      "scale=160:-2:out_range=tv,format=yuv420p,signalstats,metadata=print:file=-",
      "-f",
      "null",
      "-",
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const mean = (key: string) => {
    const values = [...out.matchAll(new RegExp(`lavfi\\.signalstats\\.${key}=([\\d.]+)`, "g"))].map((m) =>
      Number(m[1]),
    );
    if (!values.length) throw new Error(`${file}: no ${key} measured`);
    return values.reduce((a, b) => a + b, 0) / values.length;
  };
  return { contrast: mean("YHIGH") - mean("YLOW"), saturation: mean("SATAVG"), meanLuma: mean("YAVG") };
}

/** What keeps an output from looking like an SDR rendering of its HDR input; empty when it does. */
export function problemsWithSdrPicture(file: string, reference: PictureStats, tagged: boolean): string[] {
  const problems: string[] = [];
  if (tagged) {
    const v = ffprobeJson(file).streams.find((s) => s.codec_type === "video");
    const tags = [v?.color_transfer, v?.color_primaries, v?.color_space];
    if (tags.join() !== "bt709,bt709,bt709") problems.push(`tagged ${tags.join("/")}, wanted bt709 (SDR)`);
  }
  const got = pictureStats(file);
  const contrast = got.contrast / reference.contrast;
  const saturation = got.saturation / reference.saturation;
  if (contrast < MIN_CONTRAST_SHARE)
    problems.push(`flat: ${Math.round(contrast * 100)} % of an SDR rendering's contrast (${got.contrast.toFixed(1)})`);
  if (saturation < MIN_SATURATION_SHARE)
    problems.push(`washed out: ${Math.round(saturation * 100)} % of an SDR rendering's saturation`);
  return problems;
}
