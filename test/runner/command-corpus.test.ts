import { beforeAll, describe, expect, it } from "vitest";
import { createJobSchema } from "../../src/api/schemas/job-request.ts";
import { checkJobRequest } from "../../src/jobs/request/check-job-request.ts";
import type { RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { jobRequest } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/** Commands real users send. Every one must pass the API's rules and succeed in the sandbox. */
type Case = {
  name: string;
  binary?: "ffmpeg" | "ffprobe";
  inputs: Record<string, string>;
  outputs?: Record<string, string>;
  args: string[];
  stdout?: RegExp;
};
const V = { v: "clip.mp4" };
const CORPUS: Case[] = [
  {
    name: "H.264/AAC transcode with CRF",
    inputs: V,
    outputs: { out: "out.mp4" },
    args: [
      "-i",
      "{{v}}",
      "-c:v",
      "libx264",
      "-crf",
      "28",
      "-preset",
      "veryfast",
      "-c:a",
      "aac",
      "-b:a",
      "96k",
      "{{out}}",
    ],
  },
  {
    name: "scale down",
    inputs: V,
    outputs: { out: "small.mp4" },
    args: ["-i", "{{v}}", "-vf", "scale=-2:120", "-c:a", "copy", "{{out}}"],
  },
  {
    name: "crop",
    inputs: V,
    outputs: { out: "crop.mp4" },
    args: ["-i", "{{v}}", "-vf", "crop=160:120:10:10", "{{out}}"],
  },
  {
    name: "VP9/Opus WebM",
    inputs: V,
    outputs: { out: "out.webm" },
    args: [
      "-i",
      "{{v}}",
      "-c:v",
      "libvpx-vp9",
      "-b:v",
      "200k",
      "-deadline",
      "realtime",
      "-cpu-used",
      "8",
      "-c:a",
      "libopus",
      "{{out}}",
    ],
  },
  {
    name: "VP8 WebM",
    inputs: V,
    outputs: { out: "vp8.webm" },
    args: ["-i", "{{v}}", "-c:v", "libvpx", "-b:v", "300k", "-an", "{{out}}"],
  },
  {
    name: "HEVC",
    inputs: V,
    outputs: { out: "hevc.mp4" },
    args: [
      "-i",
      "{{v}}",
      "-c:v",
      "libx265",
      "-preset",
      "ultrafast",
      "-x265-params",
      "log-level=error",
      "-tag:v",
      "hvc1",
      "{{out}}",
    ],
  },
  {
    name: "extract MP3",
    inputs: V,
    outputs: { out: "audio.mp3" },
    args: ["-i", "{{v}}", "-vn", "-c:a", "libmp3lame", "-q:a", "4", "{{out}}"],
  },
  {
    name: "speech WAV 16 kHz mono",
    inputs: V,
    outputs: { out: "speech.wav" },
    args: ["-i", "{{v}}", "-vn", "-ac", "1", "-ar", "16000", "{{out}}"],
  },
  {
    name: "Opus in Ogg",
    inputs: { a: "tone.wav" },
    outputs: { out: "a.ogg" },
    args: ["-i", "{{a}}", "-c:a", "libopus", "-b:a", "64k", "{{out}}"],
  },
  {
    name: "FLAC",
    inputs: { a: "tone.wav" },
    outputs: { out: "a.flac" },
    args: ["-i", "{{a}}", "-c:a", "flac", "{{out}}"],
  },
  {
    name: "JPEG thumbnail at 1 s",
    inputs: V,
    outputs: { thumb: "thumb.jpg" },
    args: ["-ss", "1", "-i", "{{v}}", "-frames:v", "1", "-q:v", "3", "{{thumb}}"],
  },
  {
    name: "PNG thumbnail scaled",
    inputs: V,
    outputs: { thumb: "thumb.png" },
    args: ["-i", "{{v}}", "-vf", "thumbnail,scale=160:-1", "-frames:v", "1", "{{thumb}}"],
  },
  { name: "WebP still", inputs: V, outputs: { out: "still.webp" }, args: ["-i", "{{v}}", "-frames:v", "1", "{{out}}"] },
  {
    name: "GIF with palette",
    inputs: V,
    outputs: { out: "anim.gif" },
    args: [
      "-i",
      "{{v}}",
      "-vf",
      "fps=10,scale=160:-1:flags=lanczos,split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse",
      "-loop",
      "0",
      "{{out}}",
    ],
  },
  {
    name: "trim by stream copy",
    inputs: V,
    outputs: { out: "cut.mp4" },
    args: ["-ss", "0.5", "-i", "{{v}}", "-t", "1", "-c", "copy", "{{out}}"],
  },
  {
    name: "trim with -to and re-encode",
    inputs: V,
    outputs: { out: "to.mp4" },
    args: ["-i", "{{v}}", "-to", "2", "-c:v", "libx264", "-preset", "ultrafast", "{{out}}"],
  },
  {
    name: "overlay a logo",
    inputs: { v: "clip.mp4", logo: "logo.png" },
    outputs: { out: "logo.mp4" },
    args: [
      "-i",
      "{{v}}",
      "-i",
      "{{logo}}",
      "-filter_complex",
      "[0:v][1:v]overlay=W-w-10:10[v]",
      "-map",
      "[v]",
      "-map",
      "0:a",
      "-c:a",
      "copy",
      "{{out}}",
    ],
  },
  {
    name: "drawtext caption",
    inputs: V,
    outputs: { out: "text.mp4" },
    args: [
      "-i",
      "{{v}}",
      "-vf",
      "drawtext=text='ffjobs\\: demo':fontcolor=white:fontsize=24:x=10:y=10:box=1:boxcolor=black@0.5",
      "{{out}}",
    ],
  },
  {
    name: "burn in subtitles from an input",
    inputs: { v: "clip.mp4", subs: "subs.srt" },
    outputs: { out: "subbed.mp4" },
    args: ["-i", "{{v}}", "-vf", "subtitles={{subs}}:force_style='Fontsize=20'", "{{out}}"],
  },
  {
    name: "subtitles as a track in MKV",
    inputs: { v: "clip.mp4", subs: "subs.srt" },
    outputs: { out: "tracks.mkv" },
    args: [
      "-i",
      "{{v}}",
      "-i",
      "{{subs}}",
      "-map",
      "0",
      "-map",
      "1",
      "-c",
      "copy",
      "-c:s",
      "srt",
      "-metadata:s:s:0",
      "language=eng",
      "{{out}}",
    ],
  },
  {
    name: "concat filter",
    inputs: { a: "clip.mp4", b: "clip.mp4" },
    outputs: { out: "joined.mp4" },
    args: [
      "-i",
      "{{a}}",
      "-i",
      "{{b}}",
      "-filter_complex",
      "[0:v][0:a][1:v][1:a]concat=n=2:v=1:a=1[v][a]",
      "-map",
      "[v]",
      "-map",
      "[a]",
      "{{out}}",
    ],
  },
  {
    name: "frame rate change",
    inputs: V,
    outputs: { out: "15fps.mp4" },
    args: ["-i", "{{v}}", "-vf", "fps=15", "{{out}}"],
  },
  {
    name: "loudnorm to AAC",
    inputs: V,
    outputs: { out: "norm.m4a" },
    args: ["-i", "{{v}}", "-vn", "-af", "loudnorm=I=-16:TP=-1.5:LRA=11", "-c:a", "aac", "{{out}}"],
  },
  {
    name: "loudnorm analysis only",
    inputs: V,
    args: ["-i", "{{v}}", "-af", "loudnorm=print_format=json", "-f", "null", "-"],
  },
  {
    name: "amix two sources",
    inputs: { v: "clip.mp4", a: "tone.wav" },
    outputs: { out: "mixed.mp4" },
    args: [
      "-i",
      "{{v}}",
      "-i",
      "{{a}}",
      "-filter_complex",
      "[0:a][1:a]amix=inputs=2:duration=first[a]",
      "-map",
      "0:v",
      "-map",
      "[a]",
      "-c:v",
      "copy",
      "{{out}}",
    ],
  },
  {
    name: "replace audio with -map and -shortest",
    inputs: { v: "clip.mp4", a: "tone.wav" },
    outputs: { out: "dub.mp4" },
    args: ["-i", "{{v}}", "-i", "{{a}}", "-map", "0:v:0", "-map", "1:a:0", "-c:v", "copy", "-shortest", "{{out}}"],
  },
  {
    name: "volume",
    inputs: V,
    outputs: { out: "quiet.mp4" },
    args: ["-i", "{{v}}", "-af", "volume=0.5", "-c:v", "copy", "{{out}}"],
  },
  { name: "rotate", inputs: V, outputs: { out: "rot.mp4" }, args: ["-i", "{{v}}", "-vf", "transpose=1", "{{out}}"] },
  {
    name: "mirror and grayscale",
    inputs: V,
    outputs: { out: "gray.mp4" },
    args: ["-i", "{{v}}", "-vf", "hflip,format=gray", "{{out}}"],
  },
  {
    name: "double speed",
    inputs: V,
    outputs: { out: "fast.mp4" },
    args: [
      "-i",
      "{{v}}",
      "-filter_complex",
      "[0:v]setpts=0.5*PTS[v];[0:a]atempo=2.0[a]",
      "-map",
      "[v]",
      "-map",
      "[a]",
      "{{out}}",
    ],
  },
  {
    name: "fades",
    inputs: V,
    outputs: { out: "fade.mp4" },
    args: ["-i", "{{v}}", "-vf", "fade=t=in:st=0:d=1,fade=t=out:st=2:d=1", "-af", "afade=t=in:d=1", "{{out}}"],
  },
  {
    name: "letterbox with pad",
    inputs: V,
    outputs: { out: "pad.mp4" },
    args: [
      "-i",
      "{{v}}",
      "-vf",
      "scale=320:180:force_original_aspect_ratio=decrease,pad=320:240:(ow-iw)/2:(oh-ih)/2",
      "{{out}}",
    ],
  },
  {
    name: "faststart and metadata",
    inputs: V,
    outputs: { out: "web.mp4" },
    args: ["-i", "{{v}}", "-c", "copy", "-movflags", "+faststart", "-metadata", "title=Demo", "{{out}}"],
  },
  {
    name: "two outputs in one command",
    inputs: V,
    outputs: { out: "main.mp4", thumb: "poster.jpg" },
    args: ["-i", "{{v}}", "-c:v", "libx264", "-preset", "ultrafast", "{{out}}", "-frames:v", "1", "{{thumb}}"],
  },
  {
    name: "still image to video",
    inputs: { img: "logo.png" },
    outputs: { out: "slide.mp4" },
    args: [
      "-loop",
      "1",
      "-i",
      "{{img}}",
      "-t",
      "2",
      "-vf",
      "scale=64:64",
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "{{out}}",
    ],
  },
  {
    name: "waveform picture",
    inputs: { a: "tone.wav" },
    outputs: { out: "wave.png" },
    args: ["-i", "{{a}}", "-filter_complex", "showwavespic=s=320x120", "-frames:v", "1", "{{out}}"],
  },
  {
    name: "thumbnail sprite sheet",
    inputs: V,
    outputs: { out: "sprite.jpg" },
    args: ["-i", "{{v}}", "-vf", "fps=1,scale=80:-1,tile=2x2", "-frames:v", "1", "{{out}}"],
  },
  {
    name: "loop input twice",
    inputs: V,
    outputs: { out: "looped.mp4" },
    args: ["-stream_loop", "2", "-i", "{{v}}", "-c", "copy", "{{out}}"],
  },
  {
    name: "denoise and sharpen",
    inputs: V,
    outputs: { out: "clean.mp4" },
    args: ["-i", "{{v}}", "-vf", "hqdn3d,unsharp", "{{out}}"],
  },
  {
    name: "MPEG-TS remux",
    inputs: V,
    outputs: { out: "out.ts" },
    args: ["-i", "{{v}}", "-c", "copy", "-f", "mpegts", "{{out}}"],
  },
  {
    name: "H.264 to Annex B for MPEG-TS (bitstream filter)",
    inputs: V,
    outputs: { out: "annexb.ts" },
    args: ["-i", "{{v}}", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "mpegts", "{{out}}"],
  },
  {
    name: "AAC from ADTS into MP4 (bitstream filter)",
    inputs: V,
    outputs: { out: "remux.m4a" },
    args: ["-i", "{{v}}", "-vn", "-c:a", "copy", "-bsf:a", "aac_adtstoasc", "{{out}}"],
  },
  {
    name: "Opus constrained VBR for speech",
    inputs: { a: "tone.wav" },
    outputs: { out: "voice.opus" },
    args: ["-i", "{{a}}", "-c:a", "libopus", "-b:a", "32k", "-vbr", "constrained", "-application", "voip", "{{out}}"],
  },
  {
    name: "Lanczos scaling via -sws_flags",
    inputs: V,
    outputs: { out: "lanczos.mp4" },
    args: ["-i", "{{v}}", "-vf", "scale=160:-2", "-sws_flags", "lanczos+accurate_rnd", "-c:a", "copy", "{{out}}"],
  },
  {
    name: "decode past errors with -err_detect",
    inputs: V,
    outputs: { out: "tolerant.mp4" },
    args: ["-err_detect", "ignore_err", "-i", "{{v}}", "-c", "copy", "{{out}}"],
  },
  {
    name: "ffprobe format and streams as JSON",
    binary: "ffprobe",
    inputs: V,
    args: ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{v}}"],
    stdout: /"codec_name": "h264"/,
  },
  {
    name: "ffprobe one field as CSV",
    binary: "ffprobe",
    inputs: V,
    args: ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", "{{v}}"],
    stdout: /^320,240/,
  },
  {
    name: "ffprobe frame count",
    binary: "ffprobe",
    inputs: V,
    args: [
      "-v",
      "error",
      "-count_frames",
      "-select_streams",
      "v:0",
      "-show_entries",
      "stream=nb_read_frames",
      "-of",
      "default=nokey=1:noprint_wrappers=1",
      "{{v}}",
    ],
    stdout: /^75/,
  },
];

const { h } = useRunnerHarness();
const outcomes = new Map<string, Promise<RunnerOutcome>>();

beforeAll(async () => {
  for (const c of CORPUS) {
    const req = jobRequest({
      binary: c.binary ?? "ffmpeg",
      args: c.args,
      timeoutMs: 120_000,
      inputs: Object.entries(c.inputs).map(([name, file]) => ({
        name,
        url: `${h.media.url}/${file}`,
        fileName: file,
        trusted: false,
      })),
      outputs: Object.entries(c.outputs ?? {}).map(([name, fileName]) => ({
        name,
        fileName,
        contentType: "application/octet-stream",
        uploadUrl: `${h.storage.url}/${crypto.randomUUID()}`,
      })),
    });
    await h.api.submit(req);
    outcomes.set(
      c.name,
      h.api.waitFor(req.jobId, (s) => s.state === "finished", 180_000).then((s) => s.outcome!),
    );
  }
}, 30_000);

describe("realistic commands still work (API rules + runner policy + sandbox)", () => {
  it("has at least 30 of them", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CORPUS.map((c) => [c.name, c] as const))(
    "%s",
    async (_name, c) => {
      const request = createJobSchema.parse({
        binary: c.binary,
        inputs: Object.fromEntries(
          Object.keys(c.inputs).map((n) => [n, { type: "url", url: `https://media.example.com/${c.inputs[n]}` }]),
        ),
        outputs: Object.fromEntries(Object.entries(c.outputs ?? {}).map(([n, f]) => [n, { fileName: f }])),
        ffmpegArgs: c.args,
      });
      expect(checkJobRequest(request)).toEqual([]);
      const outcome = await outcomes.get(c.name)!;
      expect(outcome, `${outcome.errorMessage}\n${outcome.stderrTail.slice(-800)}`).toMatchObject({
        status: "completed",
        exitCode: 0,
      });
      expect(outcome.outputs.map((o) => o.name).sort()).toEqual(Object.keys(c.outputs ?? {}).sort());
      for (const o of outcome.outputs) {
        expect(o.size).toBeGreaterThan(0);
        expect((o.metadata as { streams: unknown[] } | null)?.streams?.length ?? 0, o.name).toBeGreaterThan(0);
      }
      if (c.stdout) expect(outcome.stdout).toMatch(c.stdout);
    },
    180_000,
  );
});
