import type { Services } from "../../services.ts";
import type { RunnerOutput } from "../../runner/runner-protocol.ts";
import { objectKeys } from "../../storage/presigner.ts";
import { directoryUploadUrl, outputPartsUrl } from "../../runner/runner-files.ts";
import { OUTPUT_PART_BYTES } from "../../storage/output-parts.ts";
import { runnerWriteToken } from "../../storage/directory-files.ts";
import { RUNNER_IO_URL_TTL_SECONDS } from "../request/limits.ts";
import type { JobSpec } from "../request/job-request.ts";
import type { JobRow } from "../store/job-row.ts";
import { checksToRun } from "../checks/default-checks.ts";

/**
 * Where a job's runner puts its outputs: the service's storage (a presigned PUT, or a directory's
 * prefix with a write token for this attempt) or the client's own destination.
 */
export function runnerOutputs(
  s: Services,
  job: Pick<JobRow, "id" | "attempts">,
  spec: JobSpec,
): Promise<RunnerOutput[]> {
  return Promise.all(
    Object.entries(spec.outputs).map(async ([name, o]): Promise<RunnerOutput> => {
      if (o.kind === "directory" && o.destination) {
        return {
          name,
          fileName: o.fileName,
          contentType: o.contentType,
          uploadUrl: o.destination.url!,
          kind: "directory",
          maxFiles: s.config.maxDirectoryFiles,
          destination: { headers: o.destination.headers ?? {} },
        };
      }
      if (o.kind === "directory") {
        const uploadToken = await writeToken(s, job, name);
        const uploadUrl = directoryUploadUrl(s.config, job.id, name, job.attempts);
        return {
          name,
          fileName: o.fileName,
          contentType: o.contentType,
          uploadUrl,
          kind: "directory",
          uploadToken,
          maxFiles: s.config.maxDirectoryFiles,
        };
      }
      const checks = checksToRun(o);
      const checked = checks ? { checks } : {};
      if (o.destination) {
        const { url, parts, headers } = o.destination;
        return {
          name,
          fileName: o.fileName,
          contentType: o.contentType,
          uploadUrl: url ?? parts!.completeUrl,
          destination: { headers: headers ?? {}, ...(parts ? { parts } : {}) },
          ...checked,
        };
      }
      // One PUT after the command, or parts sent while it still writes (a large output: the runner decides).
      const [{ url }, uploadToken] = await Promise.all([
        s.presigner.presign("PUT", objectKeys.output(job.id, name, o.fileName), RUNNER_IO_URL_TTL_SECONDS),
        writeToken(s, job, name),
      ]);
      return {
        name,
        fileName: o.fileName,
        contentType: o.contentType,
        uploadUrl: url,
        uploadToken,
        streamParts: { url: outputPartsUrl(s.config, job.id, name, job.attempts), partSizeBytes: OUTPUT_PART_BYTES },
        ...checked,
      };
    }),
  );
}

/** The write token of one attempt's runner for an output (a directory's files, a file's parts). */
function writeToken(s: Services, job: Pick<JobRow, "id" | "attempts">, name: string): Promise<string> {
  return runnerWriteToken(s.config.storage, job.id, name, job.attempts, RUNNER_IO_URL_TTL_SECONDS, s.now().getTime());
}
