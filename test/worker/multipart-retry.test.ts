import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount } from "./helpers.ts";

/**
 * A multipart upload whose parts do not add up to the declared size: the file is
 * not kept, and the slot stays usable, as docs/api.md promises — a fresh upload behind it, so the
 * client asks for part URLs again and sends the parts again. It used to keep the spent uploadId.
 * The parts go through the R2 binding here (the S3 endpoint is not running in this runtime); the e2e
 * multipart test sends them to presigned URLs.
 */
const MiB = 1024 * 1024;
let key: string;
beforeAll(async () => {
  ({ key } = await createAccount());
});

const uploadIdOf = async (id: string) =>
  (await env.DB.prepare("SELECT multipart_upload_id AS u FROM assets WHERE id = ?1")
    .bind(id)
    .first<{ u: string | null }>())!.u;

async function sendParts(id: string, parts: Uint8Array[]) {
  const row = await env.DB.prepare("SELECT object_key, multipart_upload_id FROM assets WHERE id = ?1")
    .bind(id)
    .first<{ object_key: string; multipart_upload_id: string }>();
  const upload = env.BUCKET.resumeMultipartUpload(row!.object_key, row!.multipart_upload_id);
  return Promise.all(
    parts.map(async (bytes, i) => ({ partNumber: i + 1, etag: (await upload.uploadPart(i + 1, bytes)).etag })),
  );
}

describe("a multipart upload that does not add up to its declared size", () => {
  it("is refused, and the slot gets a fresh upload: new part URLs, the parts sent again, then ready", async () => {
    const size = 5 * MiB + 2;
    const slot = await api(key, "POST", "/v1/files", {
      fileName: "big.bin",
      size,
      multipart: true,
      partSizeBytes: 5 * MiB,
    });
    expect(slot.body.upload).toMatchObject({ method: "multipart", partCount: 2 });
    const first = await uploadIdOf(slot.body.id);
    const short = await sendParts(slot.body.id, [new Uint8Array(5 * MiB), new Uint8Array(1)]);
    const refused = await api(key, "POST", `/v1/files/${slot.body.id}/complete`, { parts: short });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        details: [
          {
            path: ["parts"],
            message: expect.stringMatching(
              /add up to 5242881 bytes, but the upload declared 5242882.*send every part again/,
            ),
          },
        ],
      },
    });
    expect((await api(key, "GET", `/v1/files/${slot.body.id}`)).body).toMatchObject({ status: "pending", size });

    const second = await uploadIdOf(slot.body.id);
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    const urls = await api(key, "POST", `/v1/files/${slot.body.id}/parts`, { partNumbers: [1, 2] });
    expect(urls.status).toBe(200);
    for (const p of urls.body.parts) expect(new URL(p.url).searchParams.get("uploadId")).toBe(second);
    // The spent upload's ETags no longer complete anything.
    expect((await api(key, "POST", `/v1/files/${slot.body.id}/complete`, { parts: short })).status).toBe(400);

    const right = await sendParts(slot.body.id, [new Uint8Array(5 * MiB), new Uint8Array(2)]);
    const done = await api(key, "POST", `/v1/files/${slot.body.id}/complete`, { parts: right });
    expect(done).toMatchObject({ status: 200, body: { status: "ready", size } });
    expect((await env.BUCKET.head(`uploads/${slot.body.id}/big.bin`))!.size).toBe(size);
  });
});
