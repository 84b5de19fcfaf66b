import { basename, join } from "node:path";
import type { RunnerOutcome, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import type { JobFolder } from "./job-folder.ts";
import { directoryFileLimit } from "./directory-file-limit.ts";
import { ended } from "./job-ended.ts";
import type { Prober } from "./probe.ts";
import { summarizeProbe } from "./probe.ts";
import type { RunResult } from "./run-command.ts";
import type { RunnerSettings } from "./settings.ts";
import { trustedAgent } from "./trust.ts";
import { uploadFile } from "./upload.ts";
import { RUNNER_SECRET_HEADER } from "../../src/runner/runner-secret.ts";
import type { DeliveredFile } from "../../src/runner/runner-protocol.ts";
import { contentTypeFor } from "../../src/storage/content-types.ts";
import { DestinationRefused, sendToDestination, type DestinationSends } from "./send-to-destination.ts";
import {
  jobOwner,
  listFiles,
  openDirIn,
  openFileIn,
  openTrustedDir,
  OutputRefused,
  type OpenedDir,
  type OpenedFile,
} from "./output-file.ts";

/** Uploads in flight per directory output: HLS ladders write hundreds of small files. */
const UPLOAD_CONCURRENCY = 8;
const PLAYLIST = /\.(m3u8|mpd)$/i;

/**
 * Stores a directory output: every file the command wrote in its folder, PUT one by one under the
 * output's upload prefix with its write token, or under the user's destination prefix (its query, a
 * SAS, on every file's URL) with the destination's headers. The main file is `fileName`, or for a pattern
 * (`frame_%04d.png`) the first file in name order. Its metadata is the main file's probe, or for a
 * playlist the first media file's (a playlist names files, it is not media itself).
 */
export async function storeDirectory(
  output: RunnerOutput,
  folder: JobFolder,
  settings: RunnerSettings,
  prober: Prober,
  ran: RunResult,
  canceled: AbortSignal,
  allowedPrivateHosts: string[],
  sends: DestinationSends,
): Promise<RunnerOutcome["outputs"][number]> {
  const out = await openTrustedDir(join(folder.root, "out"));
  let dir: OpenedDir | null = null;
  try {
    const owner = jobOwner(folder.uid);
    dir = await openOwn(
      `directory output "${output.name}"`,
      () => openDirIn(out, basename(folder.hostPath(output.name)!), owner),
      ran,
    );
    const held = dir;
    // Only regular files are an output's: subfolders are never walked, and a link fails the job (never followed).
    const { files: listed, links } = await listFiles(held);
    if (links.length)
      throw ended(
        "OUTPUT_MISSING",
        `The command did not write file ${links.sort()[0]} of output "${output.name}" as its own: what is in its place is a symbolic link, which is never followed`,
        ran,
      );
    const names = listed.sort();
    const maxFiles = directoryFileLimit(output);
    if (names.length > maxFiles)
      throw ended(
        "LIMIT_EXCEEDED",
        `Directory output "${output.name}" has ${names.length} files; the limit is ${maxFiles}`,
        ran,
      );
    // Each file is opened (checked again) when it is sent, not all at once: an HLS ladder holds hundreds.
    const openFile = (name: string) =>
      openOwn(`file ${name} of output "${output.name}"`, () => openFileIn(held, name, owner), ran);
    const files = [];
    for (const path of names) files.push({ path, size: await sizeOf(openFile(path)) });
    const tooBig = files.find((f) => f.size >= settings.maxOutputBytes);
    if (tooBig)
      throw ended(
        "LIMIT_EXCEEDED",
        `File ${tooBig.path} of output "${output.name}" reached the ${settings.maxOutputBytes}-byte limit`,
        ran,
      );
    const main = output.fileName.includes("%") ? files[0]?.path : files.find((f) => f.path === output.fileName)?.path;
    if (!main)
      throw ended(
        "OUTPUT_MISSING",
        `The command wrote no ${output.fileName} in directory output "${output.name}"`,
        ran,
      );
    const probeFile = PLAYLIST.test(main) ? files.find((f) => !PLAYLIST.test(f.path))?.path : main;
    const send = output.destination
      ? sendAllToDestination(names, openFile, output, settings, allowedPrivateHosts, canceled, ran, sends)
      : uploadAll(names, openFile, output, settings, canceled, ran).then(() => null);
    const [probe, sent] = await Promise.all([probeFile ? prober(output.name, probeFile) : Promise.resolve(null), send]);
    const size = files.reduce((sum, f) => sum + f.size, 0);
    const delivered = sent
      ? {
          delivered: {
            etag: sent.find((f) => f.path === main)!.etag,
            sha256: sent.find((f) => f.path === main)!.sha256,
            files: sent,
          },
        }
      : {};
    return { name: output.name, size, metadata: summarizeProbe(probe, size), files, mainFile: main, ...delivered };
  } finally {
    await dir?.handle.close().catch(() => {});
    await out.handle.close().catch(() => {});
  }
}

type OpenFile = (name: string) => Promise<OpenedFile>;

async function sizeOf(opening: Promise<OpenedFile>): Promise<number> {
  const file = await opening;
  await file.handle.close();
  return file.size;
}

/** Opens what the job wrote (output-file.ts); a link or a file not the job's own fails the job, naming it. */
async function openOwn<T>(what: string, opening: () => Promise<T>, ran: RunResult): Promise<T> {
  try {
    return await opening();
  } catch (err) {
    if (err instanceof OutputRefused)
      throw ended(
        "OUTPUT_MISSING",
        `The command did not write ${what} as its own: what is in its place ${err.message}`,
        ran,
      );
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw ended("OUTPUT_MISSING", `The command removed ${what} before it could be stored`, ran);
    throw err;
  }
}

/**
 * Runs `send` on every file, UPLOAD_CONCURRENCY at a time, each through its own descriptor (closed
 * after); stops at the first file that cannot be opened (that failure is thrown) or sent (`send` says).
 */
async function eachFile(
  names: string[],
  openFile: OpenFile,
  canceled: AbortSignal,
  send: (name: string, file: OpenedFile) => Promise<boolean>,
): Promise<void> {
  let next = 0;
  let stop = false;
  let unopened: unknown = null;
  await Promise.all(
    Array.from({ length: Math.min(UPLOAD_CONCURRENCY, names.length) }, async () => {
      while (next < names.length && !stop && !canceled.aborted) {
        const name = names[next++];
        const file = await openFile(name).catch((err: unknown) => {
          unopened ??= err;
          return null;
        });
        if (!file) {
          stop = true;
          return;
        }
        try {
          if (!(await send(name, file))) stop = true;
        } finally {
          await file.handle.close().catch(() => {});
        }
      }
    }),
  );
  if (unopened) throw unopened;
}

/** Each file to the user's prefix (`.../hls/` + its name, with the prefix's query), 8 at a time, in name order in the answer. */
async function sendAllToDestination(
  names: string[],
  openFile: OpenFile,
  output: RunnerOutput,
  settings: RunnerSettings,
  allowedPrivateHosts: string[],
  canceled: AbortSignal,
  ran: RunResult,
  sends: DestinationSends,
): Promise<DeliveredFile[]> {
  const prefix = new URL(output.uploadUrl);
  const sent: DeliveredFile[] = [];
  let refused: { path: string; why: string } | null = null;
  await eachFile(names, openFile, canceled, async (path, file) => {
    const url = new URL(prefix);
    url.pathname += encodeURIComponent(path);
    try {
      const got = await sendToDestination(
        file,
        { ...output, uploadUrl: url.href, contentType: contentTypeFor(path) },
        settings,
        allowedPrivateHosts,
        canceled,
        sends,
      );
      sent.push({ path, size: got.size, sha256: got.sha256, etag: got.etag });
      return true;
    } catch (err) {
      refused ??= { path, why: err instanceof DestinationRefused ? err.message : "could not be sent" };
      return false;
    }
  });
  const failure = refused as { path: string; why: string } | null;
  if (failure)
    throw ended(
      "OUTPUT_UPLOAD_FAILED",
      `File ${failure.path} of output "${output.name}" could not be sent to its destination: ${failure.why}`,
      ran,
    );
  return sent.sort((a, b) => (a.path < b.path ? -1 : 1));
}

async function uploadAll(
  names: string[],
  openFile: OpenFile,
  output: RunnerOutput,
  settings: RunnerSettings,
  canceled: AbortSignal,
  ran: RunResult,
): Promise<void> {
  let failed: string | null = null;
  const auth = { authorization: `Bearer ${output.uploadToken ?? ""}`, [RUNNER_SECRET_HEADER]: settings.controlSecret };
  await eachFile(names, openFile, canceled, async (path, file) => {
    const url = output.uploadUrl + encodeURIComponent(path);
    const agent = trustedAgent(settings.extraCaFile);
    try {
      await uploadFile(file, url, auth, agent, canceled);
      return true;
    } catch {
      failed ??= path;
      return false;
    }
  });
  if (failed !== null)
    throw ended("OUTPUT_UPLOAD_FAILED", `File ${failed} of output "${output.name}" could not be stored`, ran);
}
