import type { JobSpec, RequestIssue } from "../request/job-request.ts";
import { placeholderTarget } from "../request/placeholders.ts";
import type { ALLOWED_FILTERS } from "../policy/filter-tables.ts";
import { parseFilterGraph } from "../policy/filter-graph.ts";
import type { SplitEncoding } from "./split-plan.ts";

/**
 * Which jobs a split encode can do, decided from the command alone: one video input and one
 * file output; `-vf` filters that change each frame by itself (no neighbouring frames, no timing), so a
 * segment cut anywhere gives the frames one run would; a video encoder whose segments join byte for byte
 * in MPEG-TS (x264, x265); the audio encoded once over the whole input, so it has no seams. Anything
 * else in the command is named with why it cannot be done apart. An allowlist: what is not here is not
 * eligible.
 */
export const FRAME_BY_FRAME_FILTERS = [
  "scale",
  "crop",
  "pad",
  "format",
  "setsar",
  "setdar",
  "hflip",
  "vflip",
  "transpose",
  "eq",
  "hue",
  "curves",
  "colorchannelmixer",
  "colorbalance",
  "colorlevels",
  "colorspace",
  "zscale",
  "tonemap",
  "lut",
  "lutrgb",
  "lutyuv",
  "lut3d",
  "negate",
  "vignette",
  "unsharp",
  "boxblur",
  "gblur",
  "avgblur",
  "drawbox",
  "drawgrid",
  "null",
  "copy",
] as const satisfies readonly (typeof ALLOWED_FILTERS)[number][];
export const SPLIT_VIDEO_ENCODERS = ["libx264", "libx265"] as const;
/** The final file's extension → its muxer (the containers a joined H.264/H.265 stream and its audio go in). */
const OUTPUT_MUXERS: Record<string, SplitEncoding["muxer"]> = { mp4: "mp4", m4v: "mp4", mov: "mov", mkv: "matroska" };

const VIDEO_CODEC = new Set(["-c:v", "-codec:v", "-vcodec"]);
const AUDIO_CODEC = new Set(["-c:a", "-codec:a", "-acodec"]);
/** Encoder options that act within a segment as within one run. */
const VIDEO_OPTIONS = new Set([
  "-preset",
  "-crf",
  "-qp",
  "-b:v",
  "-maxrate",
  "-bufsize",
  "-profile:v",
  "-level",
  "-level:v",
  "-pix_fmt",
  "-tune",
  "-x264-params",
  "-x265-params",
  "-bf",
  "-refs",
]);
const AUDIO_OPTIONS = new Set(["-b:a", "-ar", "-ac", "-q:a", "-aq"]);

/** `audioMapped`: the command maps the input's audio by name (`-map 0:a:0`): one run fails without it. */
export type SplitShape = { input: string; output: string; encoding: SplitEncoding; audioMapped?: boolean };

/**
 * Presets whose command is a split encode's (one video, frame-by-frame filters, x264, audio encoded
 * apart): a job of one of them may ask for `parallel`. Their command is planned again from the input at
 * the split's plan (a deinterlaced input's, say, is not one: it then runs whole). A test keeps each
 * one's typical command eligible.
 */
export const SPLIT_PRESETS = ["web-mp4"] as const;

/** `-map` of what a split encode takes anyway: the input's video (not cover art) and its first audio. */
const VIDEO_MAPS = new Set(["0:V:0", "0:v:0", "0:V", "0:v"]);
const AUDIO_MAPS = new Set(["0:a:0"]);

/** The job's split encode, or why it cannot be one (each issue at its place in the request). */
export function splitShape(spec: JobSpec): { shape: SplitShape } | { issues: RequestIssue[] } {
  const whole = (message: string) => ({ issues: [{ path: ["parallel"], message }] });
  if (spec.mode === "preset" && !(SPLIT_PRESETS as readonly string[]).includes(spec.preset ?? ""))
    return whole(`preset ${spec.preset} cannot be split: of the presets, ${SPLIT_PRESETS.join(", ")} can`);
  if (spec.binary !== "ffmpeg" || spec.steps)
    return whole("a split encode is one ffmpeg command (not ffprobe or steps)");
  const inputs = Object.keys(spec.inputs);
  const outputs = Object.entries(spec.outputs);
  if (inputs.length !== 1) return whole(`a split encode reads one video input (this job has ${inputs.length})`);
  if (outputs.length !== 1 || outputs[0][1].kind === "directory") return whole("a split encode writes one file output");
  const [outputName, declared] = outputs[0];
  const muxer = OUTPUT_MUXERS[declared.fileName.split(".").pop()!.toLowerCase()];
  if (!muxer)
    return {
      issues: [
        {
          path: ["outputs", outputName, "fileName"],
          message: `a split encode writes .${Object.keys(OUTPUT_MUXERS).join(", .")} (the containers its joined stream goes in)`,
        },
      ],
    };

  const issues: RequestIssue[] = [];
  const at = (i: number, message: string) => issues.push({ path: ["ffmpegArgs", String(i)], message });
  const encoding: SplitEncoding = {
    videoFilters: null,
    videoArgs: [],
    audioArgs: [],
    outputArgs: [],
    muxer,
    defaultStreams: true,
  };
  let sawInput = false;
  let sawOutput = false;
  let videoEncoder: string | null = null;
  let audioMapped = false;
  const args = spec.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    const target = placeholderTarget(arg);
    if (arg === "-i") {
      if (sawInput || placeholderTarget(value ?? "")?.name !== inputs[0])
        at(i, `a split encode reads its one input once: -i {{${inputs[0]}}}`);
      sawInput = true;
      i++;
    } else if (target?.name === outputName && i === args.length - 1) {
      sawOutput = true;
    } else if (arg === "-vf" || arg === "-filter:v") {
      const names = filterNames(value ?? "");
      const unfit = names?.find((name) => !(FRAME_BY_FRAME_FILTERS as readonly string[]).includes(name));
      const alone = `a split encode's filters work on each frame alone (${FRAME_BY_FRAME_FILTERS.join(", ")})`;
      if (!names?.length) at(i + 1, `the filter chain is empty or could not be read: ${alone}`);
      else if (unfit !== undefined) at(i + 1, `filter "${unfit}" uses other frames or changes timing: ${alone}`);
      encoding.videoFilters = value ?? null;
      i++;
    } else if (VIDEO_CODEC.has(arg)) {
      if (!(SPLIT_VIDEO_ENCODERS as readonly string[]).includes(value ?? ""))
        at(
          i + 1,
          `a split encode joins ${SPLIT_VIDEO_ENCODERS.join(" or ")} segments without re-encoding: not "${value}"`,
        );
      videoEncoder = value ?? null;
      encoding.videoArgs.push(arg, value ?? "");
      i++;
    } else if (VIDEO_OPTIONS.has(arg)) {
      encoding.videoArgs.push(arg, value ?? "");
      i++;
    } else if (AUDIO_CODEC.has(arg) || AUDIO_OPTIONS.has(arg)) {
      encoding.audioArgs?.push(arg, value ?? "");
      i++;
    } else if (arg === "-an") {
      encoding.audioArgs = null;
    } else if (
      arg === "-map" &&
      (VIDEO_MAPS.has(value ?? "") || (AUDIO_MAPS.has(value ?? "") && encoding.audioArgs !== null))
    ) {
      // What the split takes anyway (split-plan.ts maps 0:V:0 and 0:a:0).
      audioMapped ||= AUDIO_MAPS.has(value ?? "");
      encoding.defaultStreams = false;
      i++;
    } else if (arg === "-movflags") {
      encoding.outputArgs.push(arg, value ?? "");
      i++;
    } else {
      at(
        i,
        `"${arg}" is not something a split encode can do apart: it takes -i, -map of the first video and audio, -vf (frame-by-frame filters), -c:v ${SPLIT_VIDEO_ENCODERS.join("/")} and their rate and quality options, the audio's codec and rate options or -an, -movflags`,
      );
    }
  }
  // A command that maps streams takes only those: mapped without its audio, one run has none.
  if (!encoding.defaultStreams && !audioMapped) encoding.audioArgs = null;
  if (!sawInput)
    issues.push({ path: ["ffmpegArgs"], message: `a split encode reads its input with -i {{${inputs[0]}}}` });
  if (!sawOutput)
    issues.push({ path: ["ffmpegArgs"], message: `a split encode ends with its output, {{${outputName}}}` });
  if (!videoEncoder && !issues.length)
    issues.push({
      path: ["ffmpegArgs"],
      message: `name the video encoder: -c:v ${SPLIT_VIDEO_ENCODERS.join(" or -c:v ")}`,
    });
  return issues.length
    ? { issues }
    : { shape: { input: inputs[0], output: outputName, encoding, ...(audioMapped ? { audioMapped } : {}) } };
}

/** The filter names of a chain, or null when it does not parse. */
function filterNames(chain: string): string[] | null {
  try {
    return parseFilterGraph(chain).map((f) => f.name);
  } catch {
    return null;
  }
}
