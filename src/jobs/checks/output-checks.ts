import { z } from "zod";
import { NAME_PATTERN, PROTOTYPE_NAME_MESSAGE, PROTOTYPE_NAMES } from "../request/placeholders.ts";

/**
 * What a correct output is, as the client declares it per output (`outputs.<name>.checks`): the runner
 * measures each declared file output after the command and before its job completes (container/src/
 * verify-output.ts), and an output that misses one fails the job (OUTPUT_CHECK_FAILED) unless the job
 * says `onFailedCheck: "report"`. One schema for the request, the runner's contract and the document.
 */

const inputName = z
  .string()
  .regex(NAME_PATTERN, "an input's name")
  .refine((n) => !PROTOTYPE_NAMES.has(n), PROTOTYPE_NAME_MESSAGE);
/** ffprobe's own spelling of a pixel format or a colour tag (`yuv420p`, `bt709`, `smpte2084`, `arib-std-b67`). */
const ffprobeWord = z
  .string()
  .max(32)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, "ffprobe's name for it, in lower case (yuv420p, bt709, smpte2084)");
const bounds = (unit: string, max: number) =>
  z
    .object({
      min: z.number().min(0).max(max).optional(),
      max: z.number().min(0).max(max).optional(),
    })
    .strict()
    .refine((b) => b.min !== undefined || b.max !== undefined, `give min, max or both (${unit})`)
    .refine((b) => b.min === undefined || b.max === undefined || b.min <= b.max, "min is not above max");

export const STREAM_TYPES = ["video", "audio", "subtitle"] as const;

export const outputChecksSchema = z
  .object({
    readable: z
      .literal(true)
      .optional()
      .describe("ffprobe reads it as media with at least one stream (what an output gets when it declares no checks)."),
    streams: z
      .array(z.enum(STREAM_TYPES))
      .min(1)
      .max(STREAM_TYPES.length)
      .optional()
      .describe("Stream types the output must have, each at least once."),
    durationSeconds: z
      .object({
        equals: z.number().min(0).max(604_800).optional(),
        asInput: inputName.optional(),
        toleranceSeconds: z.number().min(0).max(3600).default(0.1),
      })
      .strict()
      .refine((d) => (d.equals === undefined) !== (d.asInput === undefined), "give equals or asInput")
      .optional()
      .describe(
        "The container's duration: a number of seconds, or an input's duration (`asInput`), within a tolerance.",
      ),
    frameRate: z
      .object({ equals: z.number().positive().max(1000), tolerance: z.number().min(0).max(100).default(0.01) })
      .strict()
      .optional()
      .describe("The first video stream's average frame rate, in frames per second."),
    frameCount: bounds("frames", 1e9).optional().describe("The first video stream's frame count (its packets)."),
    continuity: z
      .object({ maxGapFrames: z.number().min(1).max(1000).default(1.5) })
      .strict()
      .optional()
      .describe(
        "The first video stream's frames follow each other with no gap longer than `maxGapFrames` of its usual interval and none repeated: nothing dropped or doubled (a split encode's join checks this of its output).",
      ),
    width: z.number().int().positive().max(65_536).optional().describe("The first video stream's width in pixels."),
    height: z.number().int().positive().max(65_536).optional().describe("The first video stream's height in pixels."),
    pixelFormat: ffprobeWord.optional().describe("The first video stream's pixel format (`yuv420p`)."),
    color: z
      .object({
        primaries: ffprobeWord.optional(),
        transfer: ffprobeWord.optional(),
        matrix: ffprobeWord.optional(),
        range: z.enum(["tv", "pc"]).optional(),
      })
      .strict()
      .optional()
      .describe(
        "The first video stream's colour tags, as ffprobe names them (`bt709`, `smpte2084`, `bt2020nc`, `tv`).",
      ),
    avSync: z
      .object({
        maxStartDiffMs: z.number().min(0).max(60_000).optional(),
        maxLengthDiffMs: z.number().min(0).max(600_000).optional(),
        startOffsetMs: z
          .number()
          .min(-60_000)
          .max(60_000)
          .optional()
          .describe(
            "Where the audio should start against the video, 0 when not given (its start less the video's; 300: 0.3 s after): `maxStartDiffMs` is the distance allowed from it.",
          ),
      })
      .strict()
      .refine(
        (a) => a.maxStartDiffMs !== undefined || a.maxLengthDiffMs !== undefined,
        "give maxStartDiffMs, maxLengthDiffMs or both",
      )
      .optional()
      .describe(
        "How far the first audio stream may start (from `startOffsetMs`, 0 by default), and end, from the first video stream, in milliseconds.",
      ),
    loudness: z
      .object({
        integratedLufs: z.number().min(-70).max(0),
        toleranceLu: z.number().min(0).max(20).default(1),
        truePeakMaxDbtp: z.number().min(-30).max(10).optional(),
      })
      .strict()
      .optional()
      .describe(
        "The first audio stream's integrated loudness (EBU R128) within a tolerance, and its true peak at most.",
      ),
    sizeBytes: bounds("bytes", 1e13).optional().describe("The file's size in bytes."),
    bitRate: bounds("bits per second", 1e11)
      .optional()
      .describe("The container's overall bit rate, in bits per second."),
    fullDecode: z
      .literal(true)
      .optional()
      .describe("Every stream decodes from start to end without one decoder error (costs a decode of the output)."),
    quality: z
      .object({
        against: inputName,
        minPsnr: z.number().min(0).max(100).optional(),
        minSsim: z.number().min(0).max(1).optional(),
        minVmaf: z.number().min(0).max(100).optional(),
      })
      .strict()
      .refine(
        (q) => q.minPsnr !== undefined || q.minSsim !== undefined || q.minVmaf !== undefined,
        "give minPsnr, minSsim or minVmaf",
      )
      .optional()
      .describe(
        "The first video stream against an input's (the input scaled to the output's size), frame by frame: mean PSNR (dB) and SSIM at least; minVmaf where the runner's ffmpeg has libvmaf (`GET /v1/capabilities`).",
      ),
    faststart: z
      .literal(true)
      .optional()
      .describe("An MP4/MOV whose index (moov) comes before its media (mdat), so it plays while it downloads."),
  })
  .strict();
export type OutputChecks = z.infer<typeof outputChecksSchema>;

/** What a job does when an output misses a check: fail (its outputs are not published), or only report it. */
export const onFailedCheckSchema = z.enum(["fail", "report"]);
export type OnFailedCheck = z.infer<typeof onFailedCheckSchema>;

/** One check's result: what was wanted, what was measured (null: could not be measured), and in words. */
export const checkResultSchema = z.object({
  check: z.string(),
  passed: z.boolean(),
  wanted: z.unknown(),
  measured: z.unknown(),
  message: z.string(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;
