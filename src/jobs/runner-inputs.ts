import type { Services } from "../services.ts";
import type { RunnerInput } from "../runner/runner-protocol.ts";
import { getAssets } from "../storage/asset-store.ts";
import { RUNNER_IO_URL_TTL_SECONDS } from "./limits.ts";
import type { JobSpec } from "./job-request.ts";

/**
 * A job's inputs as a runner fetches them: client URLs as given, uploads by presigned GET URLs.
 * `skipMissing`: an upload deleted or expired since (an old job's) is left out instead of failing.
 */
export async function runnerInputs(s: Services, spec: JobSpec, accountId: string, opts: { skipMissing?: boolean } = {}): Promise<RunnerInput[]> {
  const assetIds = Object.values(spec.inputs).flatMap((i) => (i.type === "asset" ? [i.assetId] : []));
  const assets = new Map((await getAssets(s.db, assetIds, accountId)).map((a) => [a.id, a]));
  const gone = (assetId: string) => !assets.has(assetId) || assets.get(assetId)!.expired_at !== null;
  const present = Object.entries(spec.inputs).filter(([, i]) => !(opts.skipMissing && i.type === "asset" && gone(i.assetId)));
  return Promise.all(
    present.map(async ([name, input]): Promise<RunnerInput> => {
      if (input.type === "url") return { name, url: input.url, fileName: new URL(input.url).pathname, trusted: false };
      const asset = assets.get(input.assetId);
      if (!asset) throw new Error(`asset ${input.assetId} vanished`);
      const { url } = await s.presigner.presign("GET", asset.object_key, RUNNER_IO_URL_TTL_SECONDS);
      return { name, url, fileName: asset.file_name, trusted: true };
    }),
  );
}
