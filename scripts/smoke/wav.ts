// The smoke test's input: a WAV made in memory (no ffmpeg needed on the deploying machine), small
// enough to upload in a blink, and whose samples can be compared exactly after a lossless round trip.

export const SMOKE_WAV = { sampleRate: 8000, seconds: 1, frequencyHz: 440, amplitude: 0.5 } as const;

const BYTES_PER_SAMPLE = 2; // 16-bit PCM, mono

export function makeWav({ sampleRate, seconds, frequencyHz, amplitude } = SMOKE_WAV): Uint8Array {
  const samples = Math.round(sampleRate * seconds);
  const dataBytes = samples * BYTES_PER_SAMPLE;
  const buf = new DataView(new ArrayBuffer(44 + dataBytes));
  const ascii = (at: number, s: string) => {
    for (const [i, c] of [...s].entries()) buf.setUint8(at + i, c.charCodeAt(0));
  };
  ascii(0, "RIFF");
  buf.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  buf.setUint32(16, 16, true); // fmt chunk size
  buf.setUint16(20, 1, true); // PCM
  buf.setUint16(22, 1, true); // mono
  buf.setUint32(24, sampleRate, true);
  buf.setUint32(28, sampleRate * BYTES_PER_SAMPLE, true); // byte rate
  buf.setUint16(32, BYTES_PER_SAMPLE, true); // block align
  buf.setUint16(34, 16, true); // bits per sample
  ascii(36, "data");
  buf.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples; i++) {
    buf.setInt16(
      44 + i * BYTES_PER_SAMPLE,
      Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * frequencyHz * i) / sampleRate)),
      true,
    );
  }
  return new Uint8Array(buf.buffer);
}

export type WavInfo = { format: number; channels: number; sampleRate: number; bitsPerSample: number; data: Uint8Array };

/** Reads a WAV's fmt and data chunks, skipping any others (ffmpeg adds a LIST chunk). */
export function readWav(bytes: Uint8Array): WavInfo {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE")
    throw new Error("not a WAV file (no RIFF/WAVE header)");
  let fmt: Omit<WavInfo, "data"> | undefined;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    if (tag(at) === "fmt ") {
      fmt = {
        format: view.getUint16(at + 8, true),
        channels: view.getUint16(at + 10, true),
        sampleRate: view.getUint32(at + 12, true),
        bitsPerSample: view.getUint16(at + 22, true),
      };
    } else if (tag(at) === "data") {
      if (!fmt) throw new Error("WAV data chunk before its fmt chunk");
      return { ...fmt, data: bytes.subarray(at + 8, Math.min(bytes.length, at + 8 + size)) };
    }
    at += 8 + size + (size % 2); // chunks are padded to an even size
  }
  throw new Error("WAV file without a data chunk");
}
