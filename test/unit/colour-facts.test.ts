import { describe, expect, it } from "vitest";
import { hdrFactsOf } from "../../src/presets/colour-facts.ts";
import { mediaFactsOf } from "../../src/presets/media-facts.ts";
import { webMp4Recipe } from "../../src/presets/recipes/video-recipes.ts";
import { toSdrFilters } from "../../src/presets/recipes/tone-map.ts";

const dolby = (profile: number, compatibility: number) => ({
  side_data_list: [
    { side_data_type: "DOVI configuration record", dv_profile: profile, dv_bl_signal_compatibility_id: compatibility },
  ],
});
const probeOf = (video: Record<string, unknown>) => ({
  format: { format_name: "mov,mp4,m4a,3gp,3g2,mj2", duration: "2" },
  streams: [{ codec_type: "video", codec_name: "hevc", width: 320, height: 240, pix_fmt: "yuv420p10le", ...video }],
});

describe("an input's HDR coding, from its probe", () => {
  it("reads PQ and HLG from the transfer, BT.2020 by default, and SDR as none", () => {
    expect(hdrFactsOf({ color_transfer: "smpte2084", color_primaries: "bt2020", color_space: "bt2020nc" })).toEqual({
      transfer: "pq",
      primaries: "bt2020",
      matrix: "2020_ncl",
      dolbyVision: null,
    });
    expect(hdrFactsOf({ color_transfer: "arib-std-b67" })).toMatchObject({ transfer: "hlg", primaries: "bt2020" });
    expect(hdrFactsOf({ color_transfer: "bt709" })).toBeNull();
    expect(hdrFactsOf({})).toBeNull();
  });

  it("takes a Dolby Vision stream by its base layer, whatever its tags say", () => {
    expect(hdrFactsOf(dolby(8, 4))).toMatchObject({ transfer: "hlg", dolbyVision: { profile: 8, compatibility: 4 } });
    expect(hdrFactsOf(dolby(8, 1))).toMatchObject({ transfer: "pq" });
    expect(hdrFactsOf(dolby(5, 0))).toMatchObject({ transfer: "pq", dolbyVision: { profile: 5, compatibility: 0 } });
  });

  it("lets no tag of the file's reach a filter: prototype keys and unknown names fall back to the table's", () => {
    const facts = hdrFactsOf({ color_transfer: "smpte2084", color_primaries: "constructor", color_space: "__proto__" });
    expect(facts).toMatchObject({ primaries: "bt2020", matrix: "2020_ncl" });
    expect(hdrFactsOf({ color_transfer: "toString" })).toBeNull();
    const chain = toSdrFilters({
      ...mediaFactsOf(probeOf({ color_transfer: "smpte2084", color_primaries: "x:y=1" }))!.video!,
    });
    expect(chain.join(",")).not.toContain("x:y");
    // The first zscale names its output primaries: an untagged file's frames say "unspecified" (no path from BT.2020).
    expect(chain[0]).toMatch(/:pin=bt2020:.*:p=bt2020$/);
  });
});

describe("presets and Dolby Vision without a base layer the filters can show", () => {
  it("refuse it with INPUT_COLOUR_UNSUPPORTED, and tone-map profile 8.4 as HLG", () => {
    const ctx = (video: Record<string, unknown>) => ({
      inputs: [{ name: "video", facts: mediaFactsOf(probeOf(video))! }],
      outputs: { mp4: "video.mp4" },
    });
    const refused = webMp4Recipe({ height: 720, crf: 23, speed: "veryfast" }, ctx(dolby(5, 0)));
    expect(refused).toMatchObject({ refused: { code: "INPUT_COLOUR_UNSUPPORTED" } });
    expect("refused" in refused && refused.refused.message).toContain("profile 5");
    const planned = webMp4Recipe({ height: 720, crf: 23, speed: "veryfast" }, ctx(dolby(8, 4)));
    expect("args" in planned && planned.args.join(" ")).toContain("zscale=tin=arib-std-b67");
  });
});
