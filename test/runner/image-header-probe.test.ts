import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { imageHeaderProbe } from "../../container/src/image-header-probe.ts";
import { createJobFolder } from "../../container/src/job-folder.ts";
import { jobOwner, openFileIn, openTrustedDir } from "../../container/src/output-file.ts";
import { createProber, summarizeProbe } from "../../container/src/probe.ts";
import { readSettings } from "../../container/src/settings.ts";
import { newRunnerSecret } from "../../src/runner/runner-secret.ts";
import { jobRequest } from "./runner-api.ts";

/*
 * The drift test of container/src/image-header-probe.ts: every image the runner reads from its header
 * says what the runner's own ffprobe (sandboxed, by path, as store-outputs.ts probes) says of the same
 * file, and every one it leaves to ffprobe is one whose answer does not follow from the header.
 */
const settings = { ...readSettings({ RUNNER_CONTROL_SECRET: newRunnerSecret() }), isolation: "namespaces" as const };
const workDir = mkdtempSync(join(tmpdir(), "ffjobs-image-header-"));
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
/** Files as jobs write them: what the header gives, and what it must leave to ffprobe. */
const COVERED = [
  { fileName: "thumb.jpg", args: still("320x180") },
  { fileName: "big.jpeg", args: still("1920x1080", "-q:v", "1") },
  { fileName: "odd.jpg", args: still("333x177", "-pix_fmt", "yuvj444p") },
  { fileName: "gray.jpg", args: still("640x480", "-pix_fmt", "gray") },
  { fileName: "UPPER.JPG", args: still("400x300") },
  { fileName: "frame.png", args: still("320x180") },
  { fileName: "alpha.png", args: still("64x64", "-pix_fmt", "rgba") },
  { fileName: "gray16.png", args: still("50x30", "-pix_fmt", "gray16be") },
  { fileName: "deep.png", args: still("20x10", "-pix_fmt", "rgb48be") },
  { fileName: "palette.png", args: still("32x32", "-pix_fmt", "pal8") },
  { fileName: "mono.png", args: still("17x9", "-pix_fmt", "monob") },
  { fileName: "dot.png", args: still("1x1") },
];
const LEFT_TO_FFPROBE = [
  // Small enough that jpeg_pipe sees its end and wins over image2 (another format name, no duration).
  { fileName: "tiny.jpg", args: still("8x8") },
  // An animated PNG: the apng demuxer.
  { fileName: "moving.png", args: ["-f", "lavfi", "-i", "testsrc=s=32x32:d=0.2", "-f", "apng"] },
  // Content and name disagree.
  { fileName: "png-inside.jpg", args: still("32x32", "-c:v", "png", "-f", "image2") },
  { fileName: "jpeg-inside.png", args: still("320x240", "-c:v", "mjpeg", "-f", "image2") },
  // A sequence pattern in the name.
  { fileName: "seq%d.jpg", args: still("320x240", "-update", "1") },
];

async function outputs(files: { fileName: string; args: string[] }[]) {
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
      execFileSync("ffmpeg", ["-v", "error", "-y", ...f.args, path]);
      const file = await openFileIn(out, path.split("/").pop()!, jobOwner(null));
      handles.push(file.handle);
      return { ...f, path, file, ffprobe: async () => summarizeProbe(await probe(`o${i}`), file.size) };
    }),
  );
}

describe("an image output's metadata read from its header", () => {
  it("is what the runner's ffprobe says of the same file, for every kind it reads", { timeout: 60_000 }, async () => {
    for (const o of await outputs(COVERED)) {
      const fromHeader = await imageHeaderProbe(o.file, o.fileName);
      expect(fromHeader, o.fileName).not.toBeNull();
      expect(summarizeProbe(fromHeader, o.file.size), o.fileName).toEqual(await o.ffprobe());
    }
  });

  it("is left to ffprobe where the header does not settle it", { timeout: 60_000 }, async () => {
    for (const o of await outputs(LEFT_TO_FFPROBE)) {
      expect(await imageHeaderProbe(o.file, o.fileName), o.fileName).toBeNull();
      // ...and ffprobe does find something there: these are real images, only not ones the header settles.
      expect(await o.ffprobe(), o.fileName).not.toBeNull();
    }
  });

  it("reads no further than the header of a file that lies about itself, and never throws", async () => {
    const [jpeg, png] = await outputs([
      { fileName: "a.jpg", args: still("320x240") },
      { fileName: "a.png", args: still("320x240") },
    ]);
    const cases: { fileName: string; bytes: Buffer }[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const o of [jpeg, png]) {
      const original = readFileSync(o.path);
      for (let n = 0; n < 300; n++) {
        const bytes = Buffer.from(original.subarray(0, 4096));
        // A few bytes of the header changed: lengths, markers, sizes, chunk names.
        for (let k = 0; k < 1 + Math.floor(random() * 4); k++)
          bytes[Math.floor(random() * 64)] = Math.floor(random() * 256);
        cases.push({ fileName: o.fileName, bytes });
      }
      // A segment or chunk length pointing far past the end.
      const far = Buffer.from(original.subarray(0, 64));
      far.writeUInt16BE(0xffff, o.fileName.endsWith(".png") ? 34 : 4);
      cases.push({ fileName: o.fileName, bytes: far });
    }
    const dir = mkdtempSync(join(workDir, "lies-"));
    const { open } = await import("node:fs/promises");
    for (const [i, c] of cases.entries()) {
      const path = join(dir, `${i}-${c.fileName}`);
      writeFileSync(path, c.bytes);
      const handle = await open(path);
      const reads: number[] = [];
      const counted = Object.assign(Object.create(handle), {
        read: (buffer: Buffer, offset: number, length: number, position: number) => {
          reads.push(position + length);
          return handle.read(buffer, offset, length, position);
        },
      });
      const found = await imageHeaderProbe({ handle: counted, size: c.bytes.length }, c.fileName);
      await handle.close();
      expect(Math.max(0, ...reads)).toBeLessThanOrEqual(2048);
      if (found) {
        const s = found.streams![0];
        expect(Number(s.width) * Number(s.height)).toBeGreaterThan(0);
      }
    }
  });
});
