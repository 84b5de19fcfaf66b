import type { Services } from "../../services.ts";
import type { RunnerInput } from "../../runner/runner-protocol.ts";
import { getAssets } from "../../storage/asset-store.ts";
import { RUNNER_IO_URL_TTL_SECONDS } from "../request/limits.ts";
import type { JobInput, JobSpec } from "../request/job-request.ts";
import { chainedInputs, outputFiles } from "../request/chained-inputs.ts";

/**
 * A job's inputs as a runner fetches them: client URLs as given, uploads by presigned GET URLs.
 * `skipMissing`: an upload deleted or expired since (an old job's), or another job's output not (or no
 * longer) stored, is left out instead of failing.
 */
export async function runnerInputs(
  s: Services,
  spec: JobSpec,
  accountId: string,
  opts: { skipMissing?: boolean } = {},
): Promise<RunnerInput[]> {
  const assetIds = Object.values(spec.inputs).flatMap((i) => (i.type === "asset" ? [i.assetId] : []));
  const assets = new Map((await getAssets(s.db, assetIds, accountId)).map((a) => [a.id, a]));
  const fromJobs = await outputFiles(s.db, chainedInputs(spec));
  const gone = (name: string, i: JobInput) =>
    i.type === "asset"
      ? !assets.has(i.assetId) || assets.get(i.assetId)!.expired_at !== null
      : i.type === "job" && !fromJobs.has(name);
  const present = Object.entries(spec.inputs).filter(([name, i]) => !(opts.skipMissing && gone(name, i)));
  return Promise.all(
    present.map(async ([name, input]): Promise<RunnerInput> => {
      if (input.type === "url") return { name, url: input.url, fileName: new URL(input.url).pathname, trusted: false };
      if (input.type === "job") {
        // Dispatch reads a chained input only once its job completed (chained-inputs.ts: chainState).
        const file = fromJobs.get(name);
        if (!file) throw new Error(`output ${input.output} of job ${input.jobId} is not stored`);
        return {
          name,
          url: (await s.presigner.presign("GET", file.objectKey, RUNNER_IO_URL_TTL_SECONDS)).url,
          fileName: file.fileName,
          trusted: true,
        };
      }
      const asset = assets.get(input.assetId);
      if (!asset) throw new Error(`asset ${input.assetId} vanished`);
      const { url } = await s.presigner.presign("GET", asset.object_key, RUNNER_IO_URL_TTL_SECONDS);
      return { name, url, fileName: asset.file_name, trusted: true };
    }),
  );
}
