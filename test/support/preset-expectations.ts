import { ffprobeJson } from "./media-fixtures.ts";

/**
 * What each preset promises (its catalogue entry's `policy`), checked on a real output with ffprobe,
 * independently of the recipes' own code: a list of broken promises, empty when the output keeps them.
 */
type Probe = ReturnType<typeof ffprobeJson>;
type Stream = Probe["streams"][number];

export type InputShape = {
  video: boolean;
  audio: boolean;
  displayWidth: number;
  displayHeight: number;
  durationSeconds: number;
  audioRate: number | null;
  audioChannels: number | null;
};

/** The input as a person would describe it, from ffprobe (picture turned by its rotation; cover art is no video). */
export function inputShape(file: string): InputShape {
  const p = ffprobeJson(file);
  const v = p.streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
  const a = p.streams.find((s) => s.codec_type === "audio");
  const rotation = Math.abs(
    Number(v?.side_data_list?.find((d: { rotation?: number }) => d.rotation !== undefined)?.rotation ?? 0),
  );
  const [sarW, sarH] = String(v?.sample_aspect_ratio ?? "1:1")
    .split(":")
    .map(Number);
  const sar = sarW > 0 && sarH > 0 ? sarW / sarH : 1;
  const [w, h] = v ? [Number(v.width) * sar, Number(v.height)] : [0, 0];
  return {
    video: !!v,
    audio: !!a,
    displayWidth: rotation % 180 ? h : w,
    displayHeight: rotation % 180 ? w : h,
    durationSeconds: Number(p.format.duration),
    audioRate: a ? Number(a.sample_rate) : null,
    audioChannels: a ? Number(a.channels) : null,
  };
}

const STANDARD_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];

export function problemsWithVideo(
  s: Stream | undefined,
  want: { codec: string; maxHeight?: number; input: InputShape },
): string[] {
  if (!s) return ["no video stream"];
  const out: string[] = [];
  const [w, h] = [Number(s.width), Number(s.height)];
  if (s.codec_name !== want.codec) out.push(`video codec ${s.codec_name}, wanted ${want.codec}`);
  if (s.pix_fmt !== "yuv420p") out.push(`pixel format ${s.pix_fmt}, wanted yuv420p`);
  if (w % 2 || h % 2) out.push(`odd size ${w}x${h}`);
  if (s.side_data_list?.some((d: { rotation?: number }) => d.rotation)) out.push("still carries a rotation to apply");
  if (
    w > h !== want.input.displayWidth > want.input.displayHeight &&
    w !== h &&
    want.input.displayWidth !== want.input.displayHeight
  )
    out.push(`not upright: ${w}x${h} from a ${want.input.displayWidth}x${want.input.displayHeight} picture`);
  if (h > want.input.displayHeight + 1) out.push(`upscaled to ${h} lines from ${want.input.displayHeight}`);
  if (want.maxHeight && h > want.maxHeight) out.push(`${h} lines, more than ${want.maxHeight}`);
  if (s.sample_aspect_ratio && !["1:1", "0:1", "N/A"].includes(s.sample_aspect_ratio))
    out.push(`pixels not square (${s.sample_aspect_ratio})`);
  return out;
}

export function problemsWithAudio(
  s: Stream | undefined,
  want: { codec: string; maxChannels: number; input: InputShape; rate?: number },
): string[] {
  if (!want.input.audio) return s ? ["has audio although the input has none"] : [];
  if (!s) return ["no audio stream although the input has one"];
  const out: string[] = [];
  const rate = Number(s.sample_rate);
  if (s.codec_name !== want.codec) out.push(`audio codec ${s.codec_name}, wanted ${want.codec}`);
  const expected = want.rate ?? (STANDARD_RATES.includes(want.input.audioRate!) ? want.input.audioRate! : 48000);
  if (rate !== expected) out.push(`audio at ${rate} Hz, wanted ${expected}`);
  if (Number(s.channels) > want.maxChannels) out.push(`${s.channels} channels, at most ${want.maxChannels}`);
  return out;
}

export function problemsWithDuration(p: Probe, seconds: number, tolerance = 0.3): string[] {
  const d = Number(p.format.duration);
  return Math.abs(d - seconds) > tolerance ? [`lasts ${d.toFixed(2)} s, wanted ${seconds.toFixed(2)} s`] : [];
}

export const videoOf = (p: Probe) => p.streams.find((s) => s.codec_type === "video");
export const audioOf = (p: Probe) => p.streams.find((s) => s.codec_type === "audio");
