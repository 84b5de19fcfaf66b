/** R2 deletes at most 1000 keys per call. */
const DELETE_BATCH = 1000;

/** Deletes every object under a key prefix (a job's outputs, a directory output's files). */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor, limit: DELETE_BATCH });
    if (page.objects.length) await bucket.delete(page.objects.map((o) => o.key));
    deleted += page.objects.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return deleted;
}

/**
 * The key prefix that holds all of an asset's bytes: every asset has a folder of its own
 * (`uploads/<asset>/`, `outputs/<job>/<output>/`), holding its one file or a directory output's files.
 */
export function assetPrefix(asset: { object_key: string }): string {
  return asset.object_key.slice(0, asset.object_key.lastIndexOf("/") + 1);
}
