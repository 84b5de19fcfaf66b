import type { HdrFacts } from "../colour-facts.ts";
import type { VideoFacts } from "../media-facts.ts";

/**
 * HDR to SDR: the picture an SDR screen should show of a PQ or HLG input, as BT.709. Kept as HDR's
 * code values in 8 bits, the same picture looks flat, grey and washed out (its contrast and colour
 * squeezed into the middle of the range), so every preset that makes an SDR output converts it:
 *
 *   zscale (HDR signal to linear light, 100 nits = 1.0) → float RGB → zscale (BT.2020 to BT.709
 *   primaries) → tonemap=mobius → zscale (BT.709 transfer and matrix, limited range) → yuv420p
 *
 * mobius keeps the contrast and colour of everything up to SDR's white as it is and rolls off only
 * what lies above it; on the tests' HDR10 and HLG media it keeps 93 % of an SDR rendering's contrast
 * and 88 % of its saturation, where hable (darker overall) keeps 77 % and 72 %, and the 8-bit copy
 * of the HDR signal 39 % and 22 % (docs/api.md, "HDR inputs"). The input's coding comes from its
 * probe (the names in src/presets/colour-facts.ts), not from what each frame says, so a file whose
 * frames carry no tags converts the same. The frames leave tagged BT.709, which encoders write.
 * tonemap's peak comes from the frames' mastering or content-light metadata where they carry it.
 */
export function toSdrFilters(v: VideoFacts): string[] {
  const hdr = v.hdr;
  if (!hdr) return [];
  const transfer = hdr.transfer === "pq" ? "smpte2084" : "arib-std-b67";
  const range = v.fullRange ? "full" : "limited";
  return [
    // p= too: left to the frame's own tag, an untagged file's "unspecified" primaries have no path from BT.2020.
    `zscale=tin=${transfer}:pin=${hdr.primaries}:min=${hdr.matrix}:rin=${range}:t=linear:npl=100:p=${hdr.primaries}`,
    "format=gbrpf32le",
    "zscale=p=bt709",
    "tonemap=tonemap=mobius:desat=0",
    "zscale=t=bt709:m=bt709:r=limited",
    "format=yuv420p",
  ];
}

/**
 * The filters that keep an HDR picture as HDR in 10 bits (VP9 profile 2, say): its transfer and
 * primaries unchanged, the pixels 4:2:0 10-bit limited range.
 */
export function keepHdrFilters(v: VideoFacts): string[] {
  return v.hdr ? ["format=yuv420p10le"] : ["format=yuv420p"];
}

/** An HDR output's colour tags, the input's own: the encoder and muxer write them (VP9's colour config, WebM's Colour). */
export function hdrTags(hdr: HdrFacts): string[] {
  return [
    "-color_primaries",
    hdr.primaries,
    "-color_trc",
    hdr.transfer === "pq" ? "smpte2084" : "arib-std-b67",
    "-colorspace",
    { "2020_ncl": "bt2020nc", "2020_cl": "bt2020c", "709": "bt709" }[hdr.matrix],
  ];
}
