import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";
import {
  audioOf,
  inputShape,
  problemsWithAudio,
  problemsWithDuration,
  problemsWithVideo,
  videoOf,
  type InputShape,
} from "../support/preset-expectations.ts";
import { SDR_REFERENCE, variedMedia, type VariedMedia } from "../support/varied-media.ts";
import { problemsWithCaptions } from "../support/burned-captions.ts";
import { pictureStats, problemsWithSdrPicture, type PictureStats } from "../support/sdr-picture.ts";
import { runPresetJob } from "./preset-job.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/**
 * Every preset on every kind of input people send, each output checked with ffprobe
 * against what the preset promises. `npm run test:slow` runs all of it (FFJOBS_PRESET_MATRIX=full, about
 * 3 minutes); run alone without it, the file takes a representative slice (each preset on the awkward
 * kinds that once broke it, rotating), and =rest takes all but that slice.
 */
const { dir, media, logo } = variedMedia();
/** "full": every preset on every kind (npm run test:slow); "rest": all but the slice; else the slice. */
const MATRIX = process.env.FFJOBS_PRESET_MATRIX;
const FULL = MATRIX === "full";
const harness = useRunnerHarness({ RUNNER_CONCURRENCY: "2" }, dir);

type Check = (o: {
  /** The kind's file (the video input's, for a preset of several inputs). */
  file: string;
  outcome: RunnerOutcome;
  files: Map<string, string>;
  shape: InputShape;
  shapes: InputShape[];
}) => string[];
type PresetCase = {
  /** The preset, where the case's name is not it (a second case of one preset, with other parameters). */
  preset?: string;
  params?: Record<string, unknown>;
  needs: "video" | "audio" | "either";
  /** The error a kind is refused with, where `needs` does not say it (subtitles, say); null: it runs. */
  refusedFor?: (kind: VariedMedia) => string | null;
  check: Check;
  /**
   * What it makes of an HDR input's picture: `sdr`, that output looks like an SDR rendering of the same
   * pictures (`tagged`: and says BT.709, where the format has colour tags); `kept`, it stays as HDR.
   */
  hdr?: { sdr: string; tagged: boolean } | { kept: string };
  inputs?: (file: string) => Record<string, string> | string[];
};

const probeOf = (files: Map<string, string>, name: string) => ffprobeJson(files.get(name)!);
const webVideo =
  (codec: string, audioCodec: string, output: string): Check =>
  ({ files, shape }) => {
    const p = probeOf(files, output);
    return [
      ...problemsWithVideo(videoOf(p), { codec, maxHeight: 360, input: shape }),
      ...problemsWithAudio(audioOf(p), {
        codec: audioCodec,
        maxChannels: 2,
        input: shape,
        rate: audioCodec === "opus" ? 48000 : undefined,
      }),
      ...problemsWithDuration(p, shape.durationSeconds),
    ];
  };
const still =
  (output: string, width: number): Check =>
  ({ files, shape }) => {
    const v = videoOf(probeOf(files, output));
    const h2 = Number(v?.height);
    const wantHeight = (width * shape.displayHeight) / shape.displayWidth;
    return Number(v?.width) !== width || Math.abs(h2 - wantHeight) > 2
      ? [`picture ${v?.width}x${v?.height}, wanted ${width}x${Math.round(wantHeight)} (the input's display aspect)`]
      : [];
  };
const audioOnly =
  (output: string, codec: string, maxChannels: number): Check =>
  ({ files, shape }) => {
    const p = probeOf(files, output);
    return [
      ...(videoOf(p) ? ["carries a picture"] : []),
      ...problemsWithAudio(audioOf(p), {
        codec,
        maxChannels,
        input: shape,
        rate: codec === "opus" ? 48000 : undefined,
      }),
    ];
  };

const PRESETS: Record<string, PresetCase> = {
  probe: {
    needs: "either",
    // ffprobe reads a subtitle file too.
    refusedFor: (kind) => (kind.video || kind.audio || kind.subtitles ? null : "INPUT_HAS_NO_VIDEO"),
    check: ({ outcome }) => (JSON.parse(outcome.stdout).streams?.length ? [] : ["no streams in the probe"]),
  },
  thumbnail: {
    params: { percent: 50 },
    needs: "video",
    check: still("thumbnail", 320),
    hdr: { sdr: "thumbnail", tagged: false },
  },
  "contact-sheet": {
    params: { columns: 2, rows: 2, everyFrames: 10 },
    needs: "video",
    check: still("sheet", 480),
    hdr: { sdr: "sheet", tagged: false },
  },
  "web-mp4": {
    params: { height: 360 },
    needs: "video",
    check: webVideo("h264", "aac", "mp4"),
    hdr: { sdr: "mp4", tagged: true },
  },
  webm: {
    params: { height: 360 },
    needs: "video",
    check: webVideo("vp9", "opus", "webm"),
    hdr: { sdr: "webm", tagged: true },
  },
  "webm (hdr: keep)": {
    preset: "webm",
    params: { height: 360, hdr: "keep" },
    needs: "video",
    // As webm's, but an HDR input's picture stays 10-bit (hdrProblems checks it is).
    check: (o) => webVideo("vp9", "opus", "webm")(o).filter((p) => !/^pixel format yuv420p10le/.test(p)),
    hdr: { kept: "webm" },
  },
  gif: {
    params: { duration: 1, width: 160 },
    needs: "video",
    hdr: { sdr: "gif", tagged: false },
    check: (o) => [
      ...still("gif", 160)(o),
      ...problemsWithDuration(probeOf(o.files, "gif"), Math.min(1, o.shape.durationSeconds), 0.2),
    ],
  },
  trim: {
    params: { start: 0.5, duration: 1 },
    needs: "either",
    hdr: { kept: "clip" },
    check: ({ files, shape }) => {
      const p = probeOf(files, "clip");
      const d = Number(p.format.duration);
      // A copied cut starts at the key frame before `start` (0 s here): up to 1.5 s.
      return [
        ...(d < 0.9 || d > 1.8 ? [`lasts ${d} s, wanted 1 to 1.5 s`] : []),
        ...(shape.video && !videoOf(p) ? ["lost its video"] : []),
        ...(shape.audio && !audioOf(p) ? ["lost its audio"] : []),
      ];
    },
  },
  watermark: {
    needs: "video",
    hdr: { sdr: "watermarked", tagged: true },
    inputs: (file) => ({ video: file, logo }),
    check: ({ files, shape }) => {
      const p = probeOf(files, "watermarked");
      return [
        ...problemsWithVideo(videoOf(p), { codec: "h264", input: shape }),
        ...problemsWithDuration(p, shape.durationSeconds),
        ...(shape.audio && !audioOf(p) ? ["lost its audio"] : []),
      ];
    },
  },
  concat: {
    needs: "either",
    hdr: { sdr: "joined", tagged: true },
    inputs: (file) => [file, "h264-moov-at-end.mp4"],
    check: ({ files, shapes }) => {
      const p = probeOf(files, "joined");
      const total = shapes.reduce((n, s) => n + s.durationSeconds, 0);
      const first = shapes.find((s) => s.video)!;
      return [
        ...problemsWithVideo(videoOf(p), {
          codec: "h264",
          input: { ...first, displayHeight: Math.max(...shapes.map((s) => s.displayHeight)) },
        }),
        ...problemsWithAudio(audioOf(p), {
          codec: "aac",
          maxChannels: 2,
          input: { ...first, audio: true, audioRate: 48000 },
          rate: 48000,
        }),
        ...problemsWithDuration(p, total, 0.5),
      ];
    },
  },
  "audio-mp3": { needs: "audio", check: audioOnly("audio", "mp3", 2) },
  "audio-aac": { needs: "audio", check: audioOnly("audio", "aac", 8) },
  "audio-opus": { needs: "audio", check: audioOnly("audio", "opus", 8) },
  loudnorm: {
    needs: "audio",
    hdr: { kept: "normalized" },
    check: ({ files, shape }) => {
      const p = probeOf(files, "normalized");
      return [
        ...problemsWithAudio(audioOf(p), { codec: "aac", maxChannels: 8, input: shape }),
        ...(shape.video && !videoOf(p) ? ["lost its video"] : []),
        ...problemsWithDuration(p, shape.durationSeconds),
      ];
    },
  },
  waveform: {
    params: { width: 320, height: 64 },
    needs: "audio",
    check: ({ files }) => {
      const v = videoOf(probeOf(files, "picture"));
      return v?.width === 320 && v?.height === 64 ? [] : [`picture ${v?.width}x${v?.height}`];
    },
  },
  "subtitles-vtt": {
    needs: "either",
    refusedFor: (kind) =>
      !kind.subtitles ? "INPUT_HAS_NO_SUBTITLES" : kind.subtitles === "bitmap" ? "SUBTITLES_NOT_TEXT" : null,
    check: ({ files }) => {
      const text = readFileSync(files.get("subtitles")!, "utf8");
      return /^WEBVTT/.test(text) && / --> /.test(text) ? [] : [`not WebVTT with cues: ${text.slice(0, 80)}`];
    },
  },
  "burn-subtitles": {
    needs: "video",
    inputs: (file) => ({ video: file, subtitles: "captions.srt" }),
    check: (o) => burned(o),
    hdr: { sdr: "burned", tagged: true },
  },
  "burn-subtitles (its own track)": {
    preset: "burn-subtitles",
    needs: "video",
    refusedFor: (kind) => (!kind.video ? "INPUT_HAS_NO_VIDEO" : !kind.subtitles ? "INPUT_HAS_NO_SUBTITLES" : null),
    check: (o) => burned(o),
  },
  "web-mp4 (subtitles)": {
    preset: "web-mp4",
    params: { height: 360, subtitles: true },
    needs: "video",
    refusedFor: (kind) =>
      !kind.video
        ? "INPUT_HAS_NO_VIDEO"
        : !kind.subtitles
          ? "INPUT_HAS_NO_SUBTITLES"
          : kind.subtitles === "bitmap"
            ? "SUBTITLES_NOT_TEXT"
            : null,
    check: (o) => {
      const subtitles = probeOf(o.files, "mp4").streams.filter((s) => s.codec_type === "subtitle");
      return [
        ...webVideo("h264", "aac", "mp4")(o),
        ...(subtitles.length && subtitles.every((s) => s.codec_name === "mov_text") ? [] : ["no timed-text track"]),
      ];
    },
  },
  "hls-ladder (subtitles)": {
    preset: "hls-ladder",
    params: { renditions: [144, 240], segmentSeconds: 1 },
    needs: "video",
    inputs: (file) => ({ video: file, subtitles: "captions.srt" }),
    check: ({ files }) => {
      const master = readFileSync(files.get("hls/master.m3u8")!, "utf8");
      const cues = [...files.keys()].filter((k) => k.endsWith(".vtt")).map((k) => readFileSync(files.get(k)!, "utf8"));
      return [
        ...(/#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs0"/.test(master) ? [] : ["no subtitle rendition in the master"]),
        ...(/SUBTITLES="subs0"/.test(master) ? [] : ["the first variant names no subtitle group"]),
        ...(cues.some((c) => c.includes("Hello there")) ? [] : ["no WebVTT segment with the captions"]),
      ];
    },
  },
  "hls-ladder": {
    params: { renditions: [144, 240, 720], segmentSeconds: 1 },
    needs: "video",
    hdr: { sdr: "hls/stream_0.m3u8", tagged: true },
    check: ({ files, shape }) => {
      const variants = [...files.keys()].filter((k) => /^hls\/stream_\d+\.m3u8$/.test(k));
      if (!variants.length) return ["no variant playlists"];
      return variants.flatMap((k) => {
        const p = probeOf(files, k);
        const v = videoOf(p);
        return [
          ...problemsWithVideo(v, { codec: "h264", input: shape }),
          ...problemsWithAudio(audioOf(p), { codec: "aac", maxChannels: 2, input: shape }).map((m) => `${k}: ${m}`),
        ];
      });
    },
  },
};

/** The error a kind is refused with by this case, or null when the preset runs on it. */
function expectedRefusal(c: PresetCase, kind: VariedMedia): string | null {
  if (c.refusedFor) return c.refusedFor(kind);
  const lacks = c.needs === "video" ? !kind.video : c.needs === "audio" ? !kind.audio : !kind.video && !kind.audio;
  return lacks ? (c.needs === "audio" ? "INPUT_HAS_NO_AUDIO" : "INPUT_HAS_NO_VIDEO") : null;
}

/**
 * A burn-subtitles output: H.264 of the input's length, its captions (from 0.2 s to 1.2 s in every test
 * caption) drawn at the bottom of the upright picture, compared with the same picture without them
 * (an HDR kind's SDR rendering); too small a picture (16 lines) shows no readable caption to find.
 */
function burned({ file, files, shape }: Parameters<Check>[0]): string[] {
  const p = probeOf(files, "burned");
  const without = join(dir, media[file].hdr ? SDR_REFERENCE : file);
  return [
    ...problemsWithVideo(videoOf(p), { codec: "h264", input: shape }),
    ...problemsWithDuration(p, shape.durationSeconds),
    ...(shape.displayHeight >= 100 ? problemsWithCaptions(files.get("burned")!, without, 0.7) : []),
  ];
}

let reference: PictureStats | null = null;
/** An HDR kind's output: an SDR picture like the one it was made from, or HDR kept with its Dolby Vision record. */
function hdrProblems(want: NonNullable<PresetCase["hdr"]>, files: Map<string, string>, file: string): string[] {
  if ("sdr" in want) {
    reference ??= pictureStats(join(dir, SDR_REFERENCE));
    return problemsWithSdrPicture(files.get(want.sdr)!, reference, want.tagged);
  }
  const before = videoOf(ffprobeJson(join(dir, file)));
  const after = videoOf(probeOf(files, want.kept));
  const tenBit =
    after?.codec_name === "vp9" && after?.pix_fmt !== "yuv420p10le" ? [`pixel format ${after?.pix_fmt}`] : [];
  const dolby = (s: typeof before) => s?.side_data_list?.find((d: { dv_profile?: number }) => d.dv_profile)?.dv_profile;
  return [
    ...(after?.color_transfer !== before?.color_transfer ? [`transfer ${after?.color_transfer}, not kept`] : []),
    ...(after?.codec_name !== "vp9" && dolby(after) !== dolby(before)
      ? [`Dolby Vision profile ${dolby(after)}, not kept`]
      : []),
    ...tenBit,
  ];
}

/** The slice: the awkward kinds, a different one for each preset, so every kind is met. */
const KINDS = Object.keys(media);
function slice(k: number): string[] {
  if (FULL) return KINDS;
  const awkward = [
    "phone-rotated-odd.mp4",
    "audio.mp3",
    "cover-art.flac",
    "interlaced.ts",
    "prores-pcm.mov",
    "video-only.mp4",
    "multitrack.mkv",
    "full-range-444.mp4",
    "surround-96k.wav",
    "start-offset.ts",
    "vfr.mp4",
    "silent-ntsc.mov",
    "hevc-10bit.mp4",
    "tiny-16x16.mp4",
    "av1.mkv",
    "vp9-opus.webm",
    "hdr10-pq.mp4",
    "hlg.mp4",
    "dolby-vision-8.4.mp4",
    "long-gop-offset.ts",
    "subtitled.mp4",
    "pgs-subtitles.mkv",
    "captions.srt",
    "speech.wav",
    "wide-dynamics.flac",
    "near-silent.wav",
    "percussive.wav",
  ];
  const chosen = [awkward[k % awkward.length], awkward[(k + 5) % awkward.length]];
  return MATRIX === "rest" ? KINDS.filter((kind) => !chosen.includes(kind)) : chosen;
}

async function runPreset(preset: string, c: PresetCase, file: string) {
  const given = c.inputs?.(file) ?? {
    [preset === "probe"
      ? "video"
      : ["audio-mp3", "audio-aac", "audio-opus", "loudnorm", "waveform", "subtitles-vtt"].includes(preset)
        ? "media"
        : "video"]: file,
  };
  const { outcome, files } = await runPresetJob(harness, preset, c.params ?? {}, given);
  return {
    outcome,
    files,
    shapes: (Array.isArray(given) ? given : [given.video ?? given.media]).map((f) => inputShape(join(dir, f))),
  };
}

describe(`every preset on the kinds of media people send (${FULL ? "full matrix" : MATRIX === "rest" ? "all but the slice" : "slice; FFJOBS_PRESET_MATRIX=full for all"})`, () => {
  for (const [k, [preset, c]] of Object.entries(PRESETS).entries()) {
    for (const file of slice(k)) {
      const kind = media[file];
      const refusal = expectedRefusal(c, kind);
      it(`${preset} on ${file} (${kind.what})${refusal ? `: refused, ${refusal}` : ""}`, async () => {
        const { outcome, files, shapes } = await runPreset(c.preset ?? preset, c, file);
        if (refusal) {
          expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "failed", errorCode: refusal });
          expect(outcome.errorMessage).toContain(`Preset ${c.preset ?? preset}`);
          expect(outcome.runtimeMs).toBe(0);
          return;
        }
        expect(
          outcome.status,
          `${outcome.errorCode}: ${outcome.errorMessage}\n${outcome.stderrTail.slice(-800)}\n${outcome.plannedArgs?.join(" ")}`,
        ).toBe("completed");
        if (preset !== "probe") expect(outcome.plannedArgs?.length).toBeGreaterThan(0);
        expect(c.check({ file, outcome, files, shape: shapes[0], shapes }), outcome.plannedArgs?.join(" ")).toEqual([]);
        if (kind.hdr && c.hdr) expect(hdrProblems(c.hdr, files, kind.file), outcome.plannedArgs?.join(" ")).toEqual([]);
      }, 180_000);
    }
  }
});
