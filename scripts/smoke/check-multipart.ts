// An upload in parts, completed (docs/api.md, "Large files, in parts"): two parts, the first of the
// smallest size S3 allows for a part that is not the last, PUT to their presigned URLs, then completed
// with their ETags; storage must then hold the whole file.
import type { Asset, FfjobsClient } from "../../client/src/index.ts";
import type { ApiCall } from "./api-call.ts";
import { expected, notExpected, type Finding } from "./finding.ts";

const CHECK = "multipart upload completed";
/** S3's (and R2's) smallest part but the last. */
const PART_SIZE_BYTES = 5 * 1024 * 1024;
const LAST_PART_BYTES = 1024;

export async function checkMultipartUpload(d: {
  client: FfjobsClient;
  api: ApiCall;
  fetch: typeof fetch;
}): Promise<Finding> {
  const size = PART_SIZE_BYTES + LAST_PART_BYTES;
  const bytes = new Uint8Array(size).map((_, i) => (i * 31 + (i >> 13)) & 0xff);
  const slot = await d.client.createFile({
    fileName: "ffjobs-smoke-parts.bin",
    contentType: "application/octet-stream",
    size,
    multipart: true,
    partSizeBytes: PART_SIZE_BYTES,
  });
  try {
    if (slot.upload.method !== "multipart")
      return notExpected(
        CHECK,
        `the slot's upload is ${slot.upload.method}, not multipart`,
        "deploy this version (npm run deploy)",
      );
    const { parts } = await d.api<{ parts: { partNumber: number; url: string }[] }>(
      "POST",
      `/v1/files/${slot.id}/parts`,
      { partNumbers: [1, 2] },
    );
    const sent: { partNumber: number; etag: string }[] = [];
    for (const part of parts) {
      const start = (part.partNumber - 1) * PART_SIZE_BYTES;
      const res = await d.fetch(part.url, {
        method: "PUT",
        body: bytes.slice(start, Math.min(size, start + PART_SIZE_BYTES)),
      });
      const etag = res.headers.get("etag");
      const said = (await res.text()).replace(/\s+/g, " ").slice(0, 200);
      if (!res.ok || !etag) {
        return notExpected(
          CHECK,
          `storage answered part ${part.partNumber} HTTP ${res.status}${etag ? "" : " without an ETag"}${said ? `: ${said}` : ""}`,
          "check the R2 API token (R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY: Object Read & Write on the bucket) and R2_S3_ENDPOINT",
        );
      }
      sent.push({ partNumber: part.partNumber, etag });
    }
    const done = await d.api<Asset>("POST", `/v1/files/${slot.id}/complete`, { parts: sent });
    if (done.status !== "ready" || done.size !== size) {
      return notExpected(
        CHECK,
        `the upload completed as ${done.status} with ${done.size} bytes, expected ready with ${size}`,
        "see the Worker's logs (npx wrangler tail) for the completion",
      );
    }
    return expected(
      CHECK,
      `2 parts (${PART_SIZE_BYTES} + ${LAST_PART_BYTES} bytes) sent and completed: file ${slot.id} is ready with ${size} bytes`,
    );
  } finally {
    await d.client.deleteFile(slot.id).catch(() => {});
  }
}
