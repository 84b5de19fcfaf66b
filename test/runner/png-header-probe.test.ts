import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pngHeaderProbe } from "../../container/src/png-header-probe.ts";
import { createJobFolder } from "../../container/src/job-folder.ts";
import { jobOwner, openFileIn, openTrustedDir } from "../../container/src/output-file.ts";
import { createProber, summarizeProbe } from "../../container/src/probe.ts";
import { readSettings } from "../../container/src/settings.ts";
import { newRunnerSecret } from "../../src/runner/runner-secret.ts";
import { jobRequest } from "./runner-api.ts";

/*
 * The drift test of container/src/png-header-probe.ts: every image the runner reads from its header
 * says what the runner's own ffprobe (sandboxed, by path, as store-outputs.ts probes) says of the same
 * file, and every one it leaves to ffprobe is one whose answer does not follow from the header.
 */
const settings = { ...readSettings({ RUNNER_CONTROL_SECRET: newRunnerSecret() }), isolation: "namespaces" as const };
const workDir = mkdtempSync(join(tmpdir(), "ffjobs-png-header-"));
const handles: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const h of handles) await h.close().catch(() => {});
});

const still = (size: string, ...more: string[]) => [
  "-f",
  "lavfi",
  "-i",
  `testsrc=s=${size}`,
  "-frames:v",
  "1",
  ...more,
];
type Made = { fileName: string; args?: string[]; bytes?: Buffer };

/** Files as jobs write them: what the header gives... */
const COVERED: Made[] = [
  { fileName: "frame.png", args: still("320x180") },
  { fileName: "alpha.png", args: still("64x64", "-pix_fmt", "rgba") },
  { fileName: "gray16.png", args: still("50x30", "-pix_fmt", "gray16be") },
  { fileName: "deep.png", args: still("20x10", "-pix_fmt", "rgb48be") },
  { fileName: "palette.png", args: still("32x32", "-pix_fmt", "pal8") },
  { fileName: "mono.png", args: still("17x9", "-pix_fmt", "monob") },
  { fileName: "dot.png", args: still("1x1") },
  { fileName: "UPPER.PNG", args: still("400x300") },
  // Stored as `o<n>.png` in the job's folder, the name ffprobe is given: no sequence pattern reaches it.
  { fileName: "seq%d.png", args: still("32x32", "-update", "1") },
];

/** A 32x32 PNG with `edit` applied to its bytes (IHDR's data at 16, the first chunk after it at 33). */
function png(edit: (b: Buffer) => Buffer): Buffer {
  const path = join(workDir, "base.png");
  execFileSync("ffmpeg", ["-v", "error", "-y", ...still("32x32"), path]);
  return edit(Buffer.from(readFileSync(path)));
}
const withSize = (w: number, h: number) => (b: Buffer) => {
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b;
};
/** Where the IDAT chunk starts (its length field). */
function idatAt(b: Buffer): number {
  for (let at = 8; at + 8 <= b.length; at += 12 + b.readUInt32BE(at))
    if (b.toString("latin1", at + 4, at + 8) === "IDAT") return at;
  throw new Error("no IDAT");
}
/** The IDAT chunk's length, set to `n`. */
const idatLength = (n: number) => (b: Buffer) => {
  b.writeUInt32BE(n, idatAt(b));
  return b;
};

/** ...and what it must leave to ffprobe. */
const LEFT_TO_FFPROBE: Made[] = [
  // JPEG: never read from its header (the attack pass's files: the decoder's last frame header, other formats' probers).
  { fileName: "thumb.jpg", args: still("320x180") },
  // An animated PNG: the apng demuxer.
  { fileName: "moving.png", args: ["-f", "lavfi", "-i", "testsrc=s=32x32:d=0.2", "-f", "apng"] },
  { fileName: "jpeg-inside.png", args: still("320x240", "-c:v", "mjpeg", "-f", "image2") },
  // Found by the attack pass: ffmpeg refuses these (an IDAT longer than the file, sizes past
  // av_image_check_size), or the APNG prober claims them (a second IHDR).
  { fileName: "idat-past-end.png", bytes: png(idatLength(0x7fff0000)) },
  { fileName: "idat-all-ones.png", bytes: png(idatLength(0xffffffff)) },
  { fileName: "idat-header-only.png", bytes: png((b) => b.subarray(0, idatAt(b) + 8)) },
  { fileName: "tall.png", bytes: png(withSize(1, 3_000_000)) },
  { fileName: "wide.png", bytes: png(withSize(3_000_000, 1)) },
  { fileName: "wide-ten.png", bytes: png(withSize(2_000_000, 10)) },
  {
    fileName: "two-ihdr.png",
    bytes: png((b) => Buffer.concat([b.subarray(0, 33), b.subarray(8, 33), b.subarray(33)])),
  },
];

async function outputs(files: Made[]) {
  const req = jobRequest({
    outputs: files.map((o, i) => ({
      name: `o${i}`,
      fileName: o.fileName,
      contentType: "application/octet-stream",
      uploadUrl: "http://127.0.0.1:9/unused",
    })),
  });
  const folder = await createJobFolder(workDir, req, "namespaces");
  const out = await openTrustedDir(join(folder.root, "out"));
  handles.push(out.handle);
  const probe = createProber(folder, settings);
  return Promise.all(
    files.map(async (f, i) => {
      const path = folder.hostPath(`o${i}`)!;
      if (f.bytes) writeFileSync(path, f.bytes);
      else execFileSync("ffmpeg", ["-v", "error", "-y", ...f.args!, path]);
      const stored = path.split("/").pop()!;
      const file = await openFileIn(out, stored, jobOwner(null));
      handles.push(file.handle);
      return { ...f, stored, file, ffprobe: async () => summarizeProbe(await probe(`o${i}`), file.size) };
    }),
  );
}

describe("a PNG output's metadata read from its header", () => {
  it("is what the runner's ffprobe says of the same file, for every kind it reads", { timeout: 60_000 }, async () => {
    for (const o of await outputs(COVERED)) {
      const fromHeader = await pngHeaderProbe(o.file, o.stored);
      expect(fromHeader, o.fileName).not.toBeNull();
      expect(summarizeProbe(fromHeader, o.file.size), o.fileName).toEqual(await o.ffprobe());
    }
  });

  it("is left to ffprobe where the header does not settle it", { timeout: 60_000 }, async () => {
    for (const o of await outputs(LEFT_TO_FFPROBE)) {
      expect(await pngHeaderProbe(o.file, o.stored), o.fileName).toBeNull();
    }
  });

  it("says what ffprobe says of a header with bytes changed, or leaves it to ffprobe", {
    timeout: 120_000,
  }, async () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const base = png((b) => b);
    const lies: Made[] = [];
    for (let n = 0; lies.length < 24 && n < 2000; n++) {
      const bytes = Buffer.from(base);
      for (let k = 0; k < 1 + Math.floor(random() * 3); k++)
        bytes[8 + Math.floor(random() * 40)] = Math.floor(random() * 256);
      const stored = join(workDir, "candidate.png");
      writeFileSync(stored, bytes);
      const handle = await open(stored);
      const found = await pngHeaderProbe({ handle, size: bytes.length }, "candidate.png");
      await handle.close();
      // Only the ones it reads are worth an ffprobe: the others go to ffprobe anyway.
      if (found) lies.push({ fileName: `lie${lies.length}.png`, bytes });
    }
    expect(lies.length).toBeGreaterThan(5);
    for (const o of await outputs(lies)) {
      expect(summarizeProbe(await pngHeaderProbe(o.file, o.stored), o.file.size), o.fileName).toEqual(
        await o.ffprobe(),
      );
    }
  });

  it("reads no further than the first 2,048 bytes of a file that lies about itself, and never throws", async () => {
    const original = png((b) => b);
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const dir = mkdtempSync(join(workDir, "lies-"));
    for (let n = 0; n < 400; n++) {
      const bytes = Buffer.from(original);
      for (let k = 0; k < 1 + Math.floor(random() * 4); k++)
        bytes[Math.floor(random() * 64)] = Math.floor(random() * 256);
      const cut = n % 5 === 0 ? bytes.subarray(0, Math.floor(random() * 48)) : bytes;
      const path = join(dir, `${n}.png`);
      writeFileSync(path, cut);
      const handle = await open(path);
      const reads: number[] = [];
      const counted = Object.assign(Object.create(handle), {
        read: (buffer: Buffer, offset: number, length: number, position: number) => {
          reads.push(position + length);
          return handle.read(buffer, offset, length, position);
        },
      });
      // A size that lies too: the one the runner stat'ed, against what is there.
      const found = await pngHeaderProbe({ handle: counted, size: n % 7 === 0 ? 2 ** 40 : cut.length }, "x.png");
      await handle.close();
      expect(Math.max(0, ...reads)).toBeLessThanOrEqual(2048);
      if (found) expect(Number(found.streams![0].width) * Number(found.streams![0].height)).toBeGreaterThan(0);
    }
  });
});
