import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { RunnerOutcome, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import type { JobFolder } from "./job-folder.ts";
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
import { DestinationRefused, sendToDestination } from "./send-to-destination.ts";

/** Uploads in flight per directory output: HLS ladders write hundreds of small files. */
const UPLOAD_CONCURRENCY = 8;
const PLAYLIST = /\.(m3u8|mpd)$/i;
/** When the coordinator names no limit (MAX_DIRECTORY_FILES is its setting). */
export const DEFAULT_MAX_DIRECTORY_FILES = 1000;

/**
 * Stores a directory output: every file the command wrote in its folder, PUT one by one under the
 * output's upload prefix with its write token, or under the user's destination prefix (its query, a
 * SAS, on every file's URL) with the destination's headers. The main file is `fileName`, or for a pattern
 * (`frame_%04d.png`) the first file in name order. Its metadata is the main file's probe, or for a
 * playlist the first media file's (a playlist names files, it is not media itself).
 */
export async function storeDirectory(output: RunnerOutput, folder: JobFolder, settings: RunnerSettings, prober: Prober, ran: RunResult, canceled: AbortSignal, allowedPrivateHosts: string[]): Promise<RunnerOutcome["outputs"][number]> {
  const dir = folder.hostPath(output.name)!;
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(entries.filter((e) => e.isFile()).map(async (e) => ({ path: e.name, size: (await stat(join(dir, e.name))).size })));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const maxFiles = output.maxFiles ?? DEFAULT_MAX_DIRECTORY_FILES;
  if (files.length > maxFiles) throw ended("LIMIT_EXCEEDED", `Directory output "${output.name}" has ${files.length} files; the limit is ${maxFiles}`, ran);
  const tooBig = files.find((f) => f.size >= settings.maxOutputBytes);
  if (tooBig) throw ended("LIMIT_EXCEEDED", `File ${tooBig.path} of output "${output.name}" reached the ${settings.maxOutputBytes}-byte limit`, ran);
  const main = output.fileName.includes("%") ? files[0]?.path : files.find((f) => f.path === output.fileName)?.path;
  if (!main) throw ended("OUTPUT_MISSING", `The command wrote no ${output.fileName} in directory output "${output.name}"`, ran);
  const probeFile = PLAYLIST.test(main) ? files.find((f) => !PLAYLIST.test(f.path))?.path : main;
  const send = output.destination
    ? sendAllToDestination(files.map((f) => f.path), dir, output, settings, allowedPrivateHosts, canceled, ran)
    : uploadAll(files.map((f) => f.path), dir, output, settings, canceled).then(() => null);
  const [probe, sent] = await Promise.all([probeFile ? prober(output.name, probeFile) : Promise.resolve(null), send]);
  const size = files.reduce((sum, f) => sum + f.size, 0);
  const delivered = sent ? { delivered: { etag: sent.find((f) => f.path === main)!.etag, sha256: sent.find((f) => f.path === main)!.sha256, files: sent } } : {};
  return { name: output.name, size, metadata: summarizeProbe(probe, size), files, mainFile: main, ...delivered };
}

/** Each file to the user's prefix (`.../hls/` + its name, with the prefix's query), 8 at a time, in name order in the answer. */
async function sendAllToDestination(paths: string[], dir: string, output: RunnerOutput, settings: RunnerSettings, allowedPrivateHosts: string[], canceled: AbortSignal, ran: RunResult): Promise<DeliveredFile[]> {
  const prefix = new URL(output.uploadUrl);
  const sent: DeliveredFile[] = [];
  let next = 0;
  let refused: { path: string; why: string } | null = null;
  await Promise.all(Array.from({ length: Math.min(UPLOAD_CONCURRENCY, paths.length) }, async () => {
    while (next < paths.length && refused === null && !canceled.aborted) {
      const path = paths[next++];
      const url = new URL(prefix);
      url.pathname += encodeURIComponent(path);
      try {
        const got = await sendToDestination(join(dir, path), { ...output, uploadUrl: url.href, contentType: contentTypeFor(path) }, settings, allowedPrivateHosts, canceled);
        sent.push({ path, size: got.size, sha256: got.sha256, etag: got.etag });
      } catch (err) {
        refused = { path, why: err instanceof DestinationRefused ? err.message : "could not be sent" };
      }
    }
  }));
  const failure = refused as { path: string; why: string } | null;
  if (failure) throw ended("OUTPUT_UPLOAD_FAILED", `File ${failure.path} of output "${output.name}" could not be sent to its destination: ${failure.why}`, ran);
  return sent.sort((a, b) => (a.path < b.path ? -1 : 1));
}

async function uploadAll(paths: string[], dir: string, output: RunnerOutput, settings: RunnerSettings, canceled: AbortSignal): Promise<void> {
  let next = 0;
  let failed: string | null = null;
  await Promise.all(Array.from({ length: Math.min(UPLOAD_CONCURRENCY, paths.length) }, async () => {
    while (next < paths.length && failed === null && !canceled.aborted) {
      const path = paths[next++];
      const auth = { authorization: `Bearer ${output.uploadToken ?? ""}`, [RUNNER_SECRET_HEADER]: settings.controlSecret };
      await uploadFile(join(dir, path), output.uploadUrl + encodeURIComponent(path), auth, trustedAgent(settings.extraCaFile), canceled).catch(() => (failed = path));
    }
  }));
  if (failed !== null) throw ended("OUTPUT_UPLOAD_FAILED", `File ${failed} of output "${output.name}" could not be stored`);
}
