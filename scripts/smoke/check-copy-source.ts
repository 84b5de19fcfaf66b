// An upload URL must not be a copy primitive: with `x-amz-copy-source` an S3 PUT becomes a server-side
// copy of another object of the bucket (another account's outputs included) into the holder's slot,
// and S3-style APIs may run it even when the header was not signed (docs/security.md, "Production R2
// and copy headers"). The smoke test asks for a copy of its own upload into a fresh slot.
import type { Asset, FfjobsClient } from "../../client/src/index.ts";
import { expected, notExpected, type Finding } from "./finding.ts";

const CHECK = "R2 refuses x-amz-copy-source on an upload URL";
const MAX_SHOWN_BODY = 160;
/** What the control PUT (without the copy header) stores. */
const CONTROL_BYTES = new TextEncoder().encode("ffjobs smoke");

export async function checkCopySource(
  d: { client: FfjobsClient; fetch: typeof fetch },
  source: Pick<Asset, "id" | "fileName" | "size">,
): Promise<Finding> {
  const slot = await d.client.createFile({ fileName: "ffjobs-smoke-copy-target.wav", contentType: "audio/wav" });
  try {
    if (slot.upload.method !== "PUT")
      throw new Error(`a small file's slot answered an upload of method ${slot.upload.method}, not PUT`);
    const { url: uploadUrl, headers: signed } = slot.upload;
    const copySource = copySourceOf(uploadUrl, slot.id, source);
    // Exactly the slot's own signed request (its If-None-Match included, an empty body with its length),
    // plus the copy header; the same request without it, after, shows the refusal was the header's.
    const put = (headers: Record<string, string>, body: Uint8Array) =>
      d.fetch(uploadUrl, { method: "PUT", headers: { ...signed, ...headers }, body });
    const res = await put({ "x-amz-copy-source": copySource }, new Uint8Array(0));
    const said = (await res.text()).replace(/\s+/g, " ").slice(0, MAX_SHOWN_BODY);
    const after = await d.client.getFile(slot.id);
    const stored = after.status === "ready" ? (after.size ?? 0) : null;
    if (stored !== null && stored > 0) {
      return notExpected(
        CHECK,
        `PUT with x-amz-copy-source: ${copySource} answered HTTP ${res.status} and the slot now holds ${stored} bytes (the source has ${source.size}): an upload URL copies objects of the bucket`,
        'do not let untrusted accounts share this deployment: uploads must go through the Worker instead of presigned URLs (docs/security.md, "Production R2 and copy headers")',
      );
    }
    if (res.ok) {
      return notExpected(
        CHECK,
        `PUT with x-amz-copy-source answered HTTP ${res.status} and stored ${stored ?? "nothing"} (no bytes copied)`,
        'storage ignored the header instead of refusing it: nothing was copied today, but run npm run smoke again after R2 changes and read docs/security.md, "Production R2 and copy headers"',
        { required: false },
      );
    }
    const control = await put({}, CONTROL_BYTES);
    await control.body?.cancel();
    if (!control.ok) {
      return notExpected(
        CHECK,
        `PUT with x-amz-copy-source answered HTTP ${res.status}, but so did the same PUT without it (HTTP ${control.status}): the refusal says nothing of the header`,
        "check the R2 API token and R2_S3_ENDPOINT (the upload earlier in this test worked), then run npm run smoke again",
      );
    }
    return expected(
      CHECK,
      `PUT with x-amz-copy-source answered HTTP ${res.status}${said ? ` (${said})` : ""} and the slot stayed empty; the same PUT without it stored its ${CONTROL_BYTES.length} bytes`,
    );
  } finally {
    await d.client.deleteFile(slot.id).catch(() => {});
  }
}

/**
 * `/<bucket>/<key>` of the source upload, the bucket read from the slot's own URL (path style: the
 * bucket is the segment before `uploads/<slot id>/`, on R2 and on a local stack's S3 API alike).
 */
export function copySourceOf(uploadUrl: string, slotId: string, source: Pick<Asset, "id" | "fileName">): string {
  const path = new URL(uploadUrl).pathname;
  const at = path.indexOf(`/uploads/${slotId}/`);
  if (at < 0) throw new Error(`the upload URL's path ${path} does not name the slot's key (uploads/${slotId}/...)`);
  const bucket = path.slice(0, at).split("/").pop();
  return `/${bucket}/uploads/${source.id}/${encodeURIComponent(source.fileName)}`;
}
