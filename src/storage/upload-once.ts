import { UPLOAD_URL_TTL_SECONDS } from "../jobs/request/limits.ts";
import type { AssetRow } from "./asset-store.ts";

/**
 * A single-PUT upload URL goes straight to storage (R2's S3 API; miniflare's on a local stack): the
 * Worker never sees the PUT and cannot revoke the URL before it expires. So the URL itself must
 * stop writes the service does not want:
 *
 * - It is signed with `If-None-Match: *` (a signed header: a PUT without it fails the signature), a
 *   conditional write that storage refuses with 412 once an object is at the key. The first PUT
 *   wins; no later one, before or after the file turns `ready`, can replace its bytes.
 * - Deleting the file while its URL may still write leaves a zero-byte placeholder at the key, so a
 *   PUT with that URL is refused the same way, and queues the folder for reclaim at the URL's
 *   expiry: the scheduled sweep then deletes the placeholder and anything else there.
 *
 * Uploads in parts need neither: a part URL names its uploadId, which completing or aborting ends.
 */
export const WRITE_ONCE_HEADERS: Readonly<Record<string, string>> = { "If-None-Match": "*" };

/** Beyond the URL's own lifetime: its signing instant trails the slot's creation, and clocks differ. */
const UPLOAD_URL_CLOCK_SLACK_MS = 5 * 60_000;

/** Until when a deleted upload's single-PUT URL could still write (null: it has none, being in parts). */
export function uploadUrlWritableUntil(asset: Pick<AssetRow, "origin" | "created_at" | "part_size">): number | null {
  if (asset.origin !== "upload" || asset.part_size != null) return null;
  return Date.parse(asset.created_at) + UPLOAD_URL_TTL_SECONDS * 1000 + UPLOAD_URL_CLOCK_SLACK_MS;
}

/** The placeholder that holds a deleted upload's key until its URL has expired. */
export async function holdUploadKey(bucket: R2Bucket, objectKey: string): Promise<void> {
  await bucket
    .put(objectKey, new Uint8Array(0), {
      customMetadata: { placeholder: "a deleted upload: holds the key until its upload URL expires" },
    })
    .catch((err) =>
      console.error(`storage: ${objectKey} is not held; a late PUT there is left to the scheduled sweep`, err),
    );
}
