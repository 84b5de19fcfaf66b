import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addDolbyVisionRecord } from "./dolby-vision-box.ts";
import { writePgsSubtitles } from "./pgs-subtitles.ts";

/** The captions of the subtitle kinds: two cues inside the 2 s clips. */
const CAPTIONS_SRT =
  "1\n00:00:00,200 --> 00:00:01,200\nHello there\n\n2\n00:00:01,300 --> 00:00:01,900\nSecond caption\n";

/**
 * The kinds of files people send, made with the host's ffmpeg: short (2 s) and small, so
 * every preset can run on every one of them in the tests. Each entry says what makes it awkward.
 * Cached per machine under the tmp dir; a new kind or a changed recipe gets a new file name.
 */
export type VariedMedia = {
  file: string;
  what: string;
  video: boolean;
  audio: boolean;
  /** An HDR picture: made from SDR_REFERENCE's pictures, so its SDR outputs compare with that file. */
  hdr?: "pq" | "hlg";
  /** Its first subtitle track's kind, where it has one. */
  subtitles?: "text" | "bitmap";
};

/** The SDR rendering the HDR kinds were made from (the same pictures, BT.709), for test/support/sdr-picture.ts. */
export const SDR_REFERENCE = "sdr-reference.mp4";

const SECONDS = 2;
const picture = (size: string, rate = 25, seconds = SECONDS) => [
  "-f",
  "lavfi",
  "-i",
  `testsrc2=size=${size}:rate=${rate}:duration=${seconds}`,
];
const tone = (rate = 48000, layout = "stereo") => [
  "-f",
  "lavfi",
  "-i",
  `sine=frequency=440:sample_rate=${rate}:duration=${SECONDS},aformat=channel_layouts=${layout}`,
];
const x264 = ["-c:v", "libx264", "-preset", "ultrafast"];

/**
 * Sound whose loudness is hard to normalise (a lavfi source, 48 kHz): `speech`, pink noise in syllables
 * and pauses; `wide`, a quiet passage 34 dB under a loud one, as in film and classical music;
 * `near-silent`, room tone around −48 LUFS that needs +32 dB; `percussive`, hits whose peaks stand 16 dB
 * over their loudness, which one gain up to −16 LUFS would clip (speech's stand 15 dB over: the same).
 */
function sound(kind: "speech" | "wide" | "near-silent" | "percussive", seconds: number): string[] {
  const source = {
    speech:
      "anoisesrc=c=pink:a=0.25:r=48000,volume='0.15+0.85*gt(sin(2*PI*2.5*t)+0.3*sin(2*PI*0.7*t),0)':eval=frame,lowpass=f=4000,highpass=f=120",
    wide: "anoisesrc=c=pink:a=0.5:r=48000,volume='if(lt(t,SPLIT),0.02,1)':eval=frame,lowpass=f=8000",
    "near-silent": "anoisesrc=c=brown:a=0.024:r=48000",
    percussive: "anoisesrc=c=pink:a=0.6:r=48000,volume='exp(-6*mod(t,0.5))':eval=frame,highpass=f=60,lowpass=f=10000",
  }[kind].replace("SPLIT", String(Math.round(seconds * 0.6)));
  return ["-f", "lavfi", "-i", `${source},atrim=duration=${seconds}`];
}

/**
 * HDR made the way it is mastered from SDR pictures (BT.2408): SDR's white at 203 nits, in linear light,
 * then BT.2020 primaries and the PQ or HLG signal, HEVC Main 10 as phones and cameras record it. HDR10
 * carries its mastering display (P3 primaries, 1000 nits) and content light levels in every keyframe.
 */
function hdrPicture(transfer: "smpte2084" | "arib-std-b67"): string[] {
  const toHdr = [
    "format=yuv420p",
    "zscale=tin=bt709:min=bt709:pin=bt709:rin=limited:t=linear:npl=203:p=bt709",
    "format=gbrpf32le",
    `zscale=p=bt2020:t=${transfer}:m=bt2020nc:r=limited:npl=203`,
    "format=yuv420p10le",
  ].join(",");
  const x265 = [
    "log-level=error",
    "colorprim=bt2020",
    `transfer=${transfer}`,
    "colormatrix=bt2020nc",
    ...(transfer === "smpte2084"
      ? [
          "hdr10=1",
          "repeat-headers=1",
          "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)",
          "max-cll=1000,400",
        ]
      : []),
  ].join(":");
  return [...picture("320x240"), ...tone(), "-vf", toHdr, "-c:v", "libx265", "-preset", "ultrafast"].concat([
    "-x265-params",
    x265,
    "-tag:v",
    "hvc1",
    "-c:a",
    "aac",
  ]);
}

/** file name → how ffmpeg makes it, what it is, and which streams it has. */
const RECIPES: Record<
  string,
  { what: string; video: boolean; audio: boolean; hdr?: "pq" | "hlg"; subtitles?: "text" | "bitmap"; args: string[] }
> = {
  "h264-moov-at-end.mp4": {
    what: "H.264/AAC with the index at the end, as cameras write it",
    video: true,
    audio: true,
    args: [...picture("320x240"), ...tone(), ...x264, "-pix_fmt", "yuv420p", "-c:a", "aac"],
  },
  "hevc-10bit.mp4": {
    what: "HEVC Main 10",
    video: true,
    audio: true,
    args: [
      ...picture("320x240"),
      ...tone(),
      "-c:v",
      "libx265",
      "-preset",
      "ultrafast",
      "-x265-params",
      "log-level=error",
      "-pix_fmt",
      "yuv420p10le",
      "-tag:v",
      "hvc1",
      "-c:a",
      "aac",
    ],
  },
  "vp9-opus.webm": {
    what: "VP9/Opus WebM",
    video: true,
    audio: true,
    args: [
      ...picture("320x240"),
      ...tone(),
      "-c:v",
      "libvpx-vp9",
      "-deadline",
      "realtime",
      "-cpu-used",
      "8",
      "-b:v",
      "300k",
      "-c:a",
      "libopus",
    ],
  },
  "av1.mkv": {
    what: "AV1 and Opus in Matroska",
    video: true,
    audio: true,
    args: [...picture("320x240"), ...tone(), "-c:v", "libsvtav1", "-preset", "12", "-c:a", "libopus"],
  },
  "prores-pcm.mov": {
    what: "ProRes 422 10-bit with PCM audio, as editors export",
    video: true,
    audio: true,
    args: [...picture("320x240"), ...tone(), "-c:v", "prores_ks", "-profile:v", "2", "-c:a", "pcm_s16le"],
  },
  "phone-rotated-odd.mp4": {
    what: "a phone video: odd size, stored sideways with a 90° rotation",
    video: true,
    audio: true,
    args: [
      "-f",
      "lavfi",
      "-i",
      `testsrc=size=241x135:rate=30:duration=${SECONDS}`,
      ...tone(44100, "mono"),
      ...x264,
      "-pix_fmt",
      "yuv444p",
      "-c:a",
      "aac",
    ],
  },
  "vfr.mp4": {
    what: "variable frame rate (25 then 10 frames a second)",
    video: true,
    audio: true,
    args: [
      ...picture("320x240"),
      ...tone(),
      "-vf",
      "setpts='if(lt(N,25),N/25,1+(N-25)/10)/TB'",
      "-fps_mode",
      "vfr",
      ...x264,
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
    ],
  },
  "video-only.mp4": {
    what: "video without audio",
    video: true,
    audio: false,
    args: [...picture("320x240"), ...x264, "-pix_fmt", "yuv420p"],
  },
  "audio.mp3": {
    what: "MP3 audio alone",
    video: false,
    audio: true,
    args: [...tone(44100), "-c:a", "libmp3lame", "-b:a", "128k"],
  },
  "cover-art.flac": {
    what: "FLAC with cover art (a picture that is not a video)",
    video: false,
    audio: true,
    args: [],
  },
  "interlaced.ts": {
    what: "interlaced MPEG-2 in MPEG-TS, top field first, MP2 audio",
    video: true,
    audio: true,
    args: [
      ...picture("720x576"),
      ...tone(),
      "-c:v",
      "mpeg2video",
      "-flags",
      "+ilme+ildct",
      "-top",
      "1",
      "-b:v",
      "2M",
      "-c:a",
      "mp2",
    ],
  },
  "multitrack.mkv": {
    what: "two audio tracks and subtitles in Matroska",
    video: true,
    audio: true,
    subtitles: "text",
    args: [],
  },
  "subtitled.mp4": {
    what: "H.264/AAC with an English timed-text subtitle track, as MP4 carries captions",
    video: true,
    audio: true,
    subtitles: "text",
    args: [],
  },
  "pgs-subtitles.mkv": {
    what: "Matroska with Blu-ray bitmap subtitles (PGS), as ripped discs carry them",
    video: true,
    audio: true,
    subtitles: "bitmap",
    args: [],
  },
  "captions.srt": {
    what: "a SubRip subtitle file on its own",
    video: false,
    audio: false,
    subtitles: "text",
    args: [],
  },
  "start-offset.ts": {
    what: "a stream whose timestamps start at 10 s",
    video: true,
    audio: true,
    args: [...picture("320x240"), ...tone(), ...x264, "-pix_fmt", "yuv420p", "-c:a", "aac", "-output_ts_offset", "10"],
  },
  "full-range-444.mp4": {
    what: "H.264 High 4:4:4, full range",
    video: true,
    audio: true,
    args: [...picture("320x240"), ...tone(), ...x264, "-pix_fmt", "yuvj444p", "-color_range", "pc", "-c:a", "aac"],
  },
  "tiny-16x16.mp4": {
    what: "a 16x16 clip",
    video: true,
    audio: true,
    args: [...picture("16x16"), ...tone(), ...x264, "-pix_fmt", "yuv420p", "-c:a", "aac"],
  },
  "surround-96k.wav": { what: "5.1 PCM at 96 kHz", video: false, audio: true, args: [...tone(96000, "5.1")] },
  "hdr10-pq.mp4": {
    what: "HDR10: HEVC Main 10, PQ, BT.2020, mastering display and content light metadata",
    video: true,
    audio: true,
    hdr: "pq",
    args: hdrPicture("smpte2084"),
  },
  "hlg.mp4": {
    what: "HLG: HEVC Main 10, BT.2020, as phones record it",
    video: true,
    audio: true,
    hdr: "hlg",
    args: hdrPicture("arib-std-b67"),
  },
  "dolby-vision-8.4.mp4": {
    what: "Dolby Vision profile 8.4 (an HLG base layer), tagged as an iPhone's",
    video: true,
    audio: true,
    hdr: "hlg",
    args: hdrPicture("arib-std-b67"),
  },
  "long-gop-offset.ts": {
    what: "MPEG-TS from 10 s, 20 s long, key frames 10 s apart (x264's default), as recorders write it",
    video: true,
    audio: true,
    args: [
      ...picture("320x240", 25, 20),
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:sample_rate=48000:duration=20",
      ...x264,
      "-g",
      "250",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-output_ts_offset",
      "10",
    ],
  },
  "speech.wav": {
    what: "speech-like sound: syllables and pauses, mono",
    video: false,
    audio: true,
    args: [...sound("speech", 12), "-ac", "1"],
  },
  "wide-dynamics.flac": {
    what: "music with wide dynamics: a quiet passage 34 dB under a loud one",
    video: false,
    audio: true,
    args: [...sound("wide", 12), "-ac", "2", "-c:a", "flac"],
  },
  "near-silent.wav": {
    what: "near-silent room tone (about −48 LUFS)",
    video: false,
    audio: true,
    args: [...sound("near-silent", 8), "-ac", "2"],
  },
  "percussive.wav": {
    what: "percussion: peaks far over its loudness",
    video: false,
    audio: true,
    args: [...sound("percussive", 10), "-ac", "2"],
  },
  "silent-ntsc.mov": {
    what: "29.97 frames a second, anamorphic (SAR 32:27), no audio",
    video: true,
    audio: false,
    args: [...picture("352x240", 30000 / 1001), "-vf", "setsar=32/27", ...x264, "-pix_fmt", "yuv420p"],
  },
};

/** Every kind, made once per machine; `dir` holds them (serve it as a media server's root). */
export function variedMedia(): { dir: string; media: Record<string, VariedMedia>; logo: string } {
  const dir = join(tmpdir(), "ffjobs-varied-media-v1");
  mkdirSync(dir, { recursive: true });
  const media: Record<string, VariedMedia> = {};
  for (const [file, r] of Object.entries(RECIPES)) {
    const path = join(dir, file);
    if (!existsSync(path)) makeOne(dir, file, r.args);
    media[file] = {
      file,
      what: r.what,
      video: r.video,
      audio: r.audio,
      ...(r.hdr ? { hdr: r.hdr } : {}),
      ...(r.subtitles ? { subtitles: r.subtitles } : {}),
    };
  }
  // Not a kind of input: the SDR pictures the HDR kinds were made from.
  if (!existsSync(join(dir, SDR_REFERENCE)))
    makeOne(dir, SDR_REFERENCE, [...picture("320x240"), ...x264, "-pix_fmt", "yuv420p", "-qp", "0"]);
  // Not a kind of input: the watermark preset's second input.
  const logo = "logo.png";
  if (!existsSync(join(dir, logo)))
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "color=c=red@0.8:s=24x24,format=rgba",
      "-frames:v",
      "1",
      join(dir, logo),
    ]);
  return { dir, media, logo };
}

function makeOne(dir: string, file: string, args: string[]) {
  const tmp = join(dir, `.partial-${file}`);
  const ff = (a: string[], out: string) =>
    execFileSync("ffmpeg", ["-v", "error", "-y", ...a, out], { stdio: ["ignore", "ignore", "pipe"] });
  if (file === "cover-art.flac") {
    const cover = join(dir, ".cover.png");
    ff(["-f", "lavfi", "-i", "testsrc2=size=200x200", "-frames:v", "1"], cover);
    ff(
      [
        ...tone(44100),
        "-i",
        cover,
        "-map",
        "0:a",
        "-map",
        "1:v",
        "-c:a",
        "flac",
        "-c:v",
        "png",
        "-disposition:v",
        "attached_pic",
        "-f",
        "flac",
      ],
      tmp,
    );
  } else if (file === "multitrack.mkv") {
    const subs = join(dir, ".subs.srt");
    writeFileSync(subs, "1\n00:00:00,000 --> 00:00:01,500\nHello\n");
    ff(
      [
        ...picture("320x240"),
        ...tone(48000),
        "-f",
        "lavfi",
        "-i",
        `sine=frequency=880:sample_rate=44100:duration=${SECONDS}`,
        "-i",
        subs,
        "-map",
        "0:v",
        "-map",
        "1:a",
        "-map",
        "2:a",
        "-map",
        "3:s",
        ...x264,
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        "-c:s",
        "ass",
        "-metadata:s:a:0",
        "language=eng",
        "-metadata:s:a:1",
        "language=fra",
        "-f",
        "matroska",
      ],
      tmp,
    );
  } else if (file === "captions.srt") {
    writeFileSync(tmp, CAPTIONS_SRT);
  } else if (file === "subtitled.mp4") {
    const subs = join(dir, ".captions.srt");
    writeFileSync(subs, CAPTIONS_SRT);
    ff(withEnglishSubtitles(subs, "mov_text", "mp4"), tmp);
  } else if (file === "pgs-subtitles.mkv") {
    const subs = join(dir, ".bitmaps.sup");
    writePgsSubtitles(subs, { width: 320, height: 240 }, [
      { fromSeconds: 0.2, toSeconds: 1.2 },
      { fromSeconds: 1.3, toSeconds: 1.9 },
    ]);
    ff(withEnglishSubtitles(subs, "copy", "matroska"), tmp);
  } else if (file === "dolby-vision-8.4.mp4") {
    ff([...args, "-f", "mp4"], tmp);
    addDolbyVisionRecord(tmp, { profile: 8, level: 4, compatibility: 4 });
  } else if (file === "phone-rotated-odd.mp4") {
    // ffmpeg 5.1 writes the rotation (a display matrix) only when it copies streams.
    const upright = join(dir, ".upright.mp4");
    ff(args, upright);
    ff(["-i", upright, "-c", "copy", "-metadata:s:v:0", "rotate=90", "-f", "mp4"], tmp);
  } else {
    ff([...args, "-f", formatOf(file)], tmp);
  }
  renameSync(tmp, join(dir, file));
}

/** The 2 s picture and tone with `subs` as an English subtitle track, in `format`. */
function withEnglishSubtitles(subs: string, codec: string, format: string): string[] {
  return [...picture("320x240"), ...tone(), "-i", subs, "-map", "0:v", "-map", "1:a", "-map", "2:s"]
    .concat([...x264, "-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", codec, "-metadata:s:s:0", "language=eng"])
    .concat(["-f", format]);
}

function formatOf(file: string): string {
  const ext = file.slice(file.lastIndexOf(".") + 1);
  return (
    {
      mp4: "mp4",
      webm: "webm",
      mkv: "matroska",
      mov: "mov",
      mp3: "mp3",
      flac: "flac",
      ts: "mpegts",
      wav: "wav",
    } as Record<string, string>
  )[ext];
}
