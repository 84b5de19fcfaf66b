import type { Config } from "../config.ts";

/**
 * Where a runner uploads the files of a job's directory outputs (their names are known only after
 * the run, so no presigned URL can be made beforehand): the Worker stores them (src/storage/
 * directory-files.ts) under a write token bound to the job and output. A container reaches a
 * made-up host its egress handler answers; a local runner, the Worker's own route.
 */
export const FILES_HOST = "runner-files.ffjobs.internal";
export const LOCAL_FILES_PATH = "/internal/runner-files";

/** The prefix the runner PUTs a directory output's files under (`<prefix><file name>`). */
export function directoryUploadUrl(config: Config, jobId: string, outputName: string): string {
  const base = config.runnerMode === "container" ? `http://${FILES_HOST}` : `${config.runnerNotifyBaseUrl ?? ""}${LOCAL_FILES_PATH}`;
  return `${base}/jobs/${jobId}/${outputName}/`;
}

export function isRunnerFilesRequest(url: URL): boolean {
  return url.hostname === FILES_HOST;
}
