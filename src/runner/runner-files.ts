import type { Config } from "../config.ts";
import { DEFAULT_MAX_OUTPUT_BYTES } from "../jobs/request/limits.ts";
import type { Env } from "../env.ts";
import { acceptRunnerFile, type RunnerFileLimits } from "../storage/directory-files.ts";
import { acceptOutputParts, isOutputPartsPath } from "../storage/output-parts.ts";
import { FILES_HOST } from "../net/public-host-name.ts";

/**
 * Where a runner uploads the files of a job's directory outputs (their names are known only after
 * the run, so no presigned URL can be made beforehand): the Worker stores them (src/storage/
 * directory-files.ts) under a write token bound to the job and output. A container reaches a
 * made-up host its egress handler answers; a local runner, the Worker's own route.
 */
export { FILES_HOST };
export const LOCAL_FILES_PATH = "/internal/runner-files";

/** The prefix one attempt's runner PUTs a directory output's files under (`<prefix><file name>`). */
export function directoryUploadUrl(config: Config, jobId: string, outputName: string, attempt: number): string {
  return `${runnerFilesBase(config)}/jobs/${jobId}/${outputName}/${attempt}/`;
}

/** The prefix one attempt's runner drives a file output's multipart upload under (src/storage/output-parts.ts). */
export function outputPartsUrl(config: Config, jobId: string, outputName: string, attempt: number): string {
  return `${runnerFilesBase(config)}/parts/${jobId}/${outputName}/${attempt}/`;
}

function runnerFilesBase(config: Config): string {
  return config.runnerMode === "container"
    ? `http://${FILES_HOST}`
    : `${config.runnerNotifyBaseUrl ?? ""}${LOCAL_FILES_PATH}`;
}

/** What a runner may store for a directory output (the runner enforces the same while it runs). */
export function runnerFileLimits(config: Config): RunnerFileLimits {
  return {
    maxFileBytes: DEFAULT_MAX_OUTPUT_BYTES,
    maxFiles: config.maxDirectoryFiles,
    maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
  };
}

export function isRunnerFilesRequest(url: URL): boolean {
  return url.hostname === FILES_HOST;
}

/** A runner's upload to the Worker: a directory output's file, or a part of a file output (its path says which). */
export function acceptRunnerUpload(env: Pick<Env, "BUCKET" | "DB">, config: Config, req: Request): Promise<Response> {
  const limits = runnerFileLimits(config);
  const { hostname, pathname } = new URL(req.url);
  // The files host's own paths; a local runner's are under the Worker's route for them.
  const path = hostname === FILES_HOST ? pathname : pathname.slice(LOCAL_FILES_PATH.length);
  return isOutputPartsPath(path)
    ? acceptOutputParts(env.BUCKET, env.DB, config.storage, limits.maxOutputBytes, req, path)
    : acceptRunnerFile(env.BUCKET, env.DB, config.storage, limits, req);
}
