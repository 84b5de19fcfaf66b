import { z } from "zod";
import { definePreset } from "./preset.ts";
import { HDR_TO_SDR } from "./video-presets.ts";

const track = z.number().int().min(0).max(99).default(0);
const hexColour = z.string().regex(/^#[0-9A-Fa-f]{6}$/, "a colour as #RRGGBB");

export const subtitlesVttPreset = definePreset({
  name: "subtitles-vtt",
  description: "A subtitle track (`track`, 0 for the first) as WebVTT, for a web player's <track> or an HLS rendition.",
  binary: "ffmpeg",
  inputs: ["media"],
  params: z.object({ track }).strict(),
  outputs: { subtitles: { fileName: "subtitles.vtt", contentType: "text/vtt", kind: "file" } },
  policy:
    "Needs a text subtitle track at `track` (INPUT_HAS_NO_SUBTITLES otherwise; the message says how many there are): SubRip, ASS, WebVTT or MP4's timed text, in a video file or on its own (an .srt, .vtt or .ass input). A bitmap track (Blu-ray PGS, DVB, DVD) is pictures, not text: refused with SUBTITLES_NOT_TEXT (burn-subtitles draws it in). ASS styling is dropped; the cues' text and times are kept.",
});

export const burnSubtitlesPreset = definePreset({
  name: "burn-subtitles",
  description:
    "Subtitles drawn into the picture (captions for social clips): the input's track `track`, or the `subtitles` input's (SRT, WebVTT or ASS), styled by the parameters; H.264/AAC MP4.",
  binary: "ffmpeg",
  inputs: ["video"],
  optionalInputs: ["subtitles"],
  params: z
    .object({
      track,
      fontSize: z.number().min(1).max(20).default(5).describe("the text's height, in % of the picture's"),
      color: hexColour.default("#FFFFFF"),
      outlineColor: hexColour.default("#000000"),
      position: z.enum(["bottom", "top"]).default("bottom"),
      margin: z.number().min(0).max(40).default(5).describe("from the picture's edge, in % of its height"),
    })
    .strict(),
  outputs: {
    burned: {
      fileName: "burned.mp4",
      contentType: "video/mp4",
      kind: "file",
      checks: () => ({
        streams: ["video"],
        fullDecode: true,
        durationSeconds: { asInput: "video", toleranceSeconds: 0.25 },
      }),
    },
  },
  policy: `Needs a video stream (INPUT_HAS_NO_VIDEO) and a subtitle track at \`track\`: the \`subtitles\` input's when given (an .srt, .vtt or .ass file), else the video's own (INPUT_HAS_NO_SUBTITLES). Text is drawn by libass in DejaVu Sans (the font the runner's image carries) with the parameters' size, colours, outline and place, over an ASS file's own styles; a bitmap track (PGS, DVB, DVD) is laid over the picture as it is, scaled to it. Drawn after the picture is upright, deinterlaced and scaled to even dimensions, so captions sit at the bottom (or top) of what a viewer sees on rotated and odd-sized inputs. The video's own text track is read from a local copy of the video (at most the operator's RUNNER_MAX_COPIED_INPUT_BYTES, 2 GiB by default): for a larger video, extract the track with subtitles-vtt and give it as the \`subtitles\` input. A track in a codec this ffmpeg does not decode, or a bitmap track whose file declares a picture over the pixel limit, is refused INPUT_UNREADABLE. ${HDR_TO_SDR}. H.264 CRF 20 8-bit 4:2:0 at the input's size; the first audio track as AAC 128 kb/s, at most stereo.`,
});
