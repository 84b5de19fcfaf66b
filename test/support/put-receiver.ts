import { createHash } from "node:crypto";
import http from "node:http";

/**
 * A loopback stand-in for the user's S3-compatible bucket, where the runner sends outputs with a
 * `destination` in tests. It records PUT bodies and their headers and answers as S3 does (an ETag,
 * the body's MD5 in quotes); `/fail…` answers 500, `/deny…` 403 with S3's XML error, `/slow…` after
 * 10 s. It also keeps S3's multipart upload as its API reference states it
 * (docs.aws.amazon.com/AmazonS3/latest/API/API_CreateMultipartUpload.html, API_UploadPart.html,
 * API_CompleteMultipartUpload.html) and refuses what S3 refuses: a part or completion for an upload id
 * it never made (404 NoSuchUpload), a completion whose parts are out of order (InvalidPartOrder), name
 * a part not uploaded or with another ETag (InvalidPart), or are under 5 MiB before the last
 * (EntityTooSmall). The completed object's ETag is S3's: the MD5 of the parts' MD5s, "-" their count.
 * Signatures are not checked (the tests' URLs carry stand-ins): the runner never reads them.
 */
const MIN_PART_BYTES = 5 * 1024 * 1024;

export async function startPutReceiver() {
  const received = new Map<
    string,
    { body: Buffer; contentType: string | undefined; headers: http.IncomingHttpHeaders }
  >();
  /** Multipart uploads by id: the object's path and the parts received, by number. */
  const uploads = new Map<
    string,
    { path: string; parts: Map<number, { body: Buffer; etag: string; headers: http.IncomingHttpHeaders }> }
  >();
  const s3Error = (res: http.ServerResponse, status: number, code: string, message: string) =>
    res
      .writeHead(status, { "content-type": "application/xml" })
      .end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
  const md5 = (b: Buffer) => createHash("md5").update(b).digest();

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    try {
      for await (const c of req) chunks.push(c as Buffer);
    } catch {
      return; // the uploader gave up mid-body (a canceled job): nothing to record or answer
    }
    const url = new URL(req.url ?? "/", "http://x");
    const body = Buffer.concat(chunks);
    if (req.method === "POST" && url.searchParams.has("uploads")) {
      const id = crypto.randomUUID();
      uploads.set(id, { path: url.pathname, parts: new Map() });
      return res
        .writeHead(200, { "content-type": "application/xml" })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<InitiateMultipartUploadResult><Key>${url.pathname.slice(1)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
        );
    }
    const uploadId = url.searchParams.get("uploadId");
    if (uploadId !== null) {
      const upload = uploads.get(uploadId);
      if (!upload || upload.path !== url.pathname)
        return s3Error(res, 404, "NoSuchUpload", "The specified upload does not exist.");
      if (req.method === "PUT") {
        const n = Number(url.searchParams.get("partNumber"));
        if (!Number.isInteger(n) || n < 1 || n > 10_000)
          return s3Error(res, 400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive");
        const etag = `"${md5(body).toString("hex")}"`;
        upload.parts.set(n, { body, etag, headers: req.headers });
        return res.writeHead(200, { etag }).end();
      }
      if (req.method !== "POST") return res.writeHead(405).end();
      const listed = [
        ...body.toString().matchAll(/<Part>\s*<PartNumber>(\d+)<\/PartNumber>\s*<ETag>([^<]*)<\/ETag>\s*<\/Part>/g),
      ].map((m) => ({ n: Number(m[1]), etag: m[2].replaceAll("&quot;", '"') }));
      if (listed.length === 0)
        return s3Error(
          res,
          400,
          "MalformedXML",
          "The XML you provided was not well-formed or did not validate against our published schema.",
        );
      if (listed.some((p, i) => i > 0 && p.n <= listed[i - 1].n))
        return s3Error(res, 400, "InvalidPartOrder", "The list of parts was not in ascending order.");
      const parts = listed.map((p) => upload.parts.get(p.n));
      if (listed.some((p, i) => !parts[i] || parts[i]!.etag !== p.etag))
        return s3Error(res, 400, "InvalidPart", "One or more of the specified parts could not be found.");
      if (parts.slice(0, -1).some((p) => p!.body.length < MIN_PART_BYTES))
        return s3Error(
          res,
          400,
          "EntityTooSmall",
          "Your proposed upload is smaller than the minimum allowed object size.",
        );
      const object = Buffer.concat(parts.map((p) => p!.body));
      const etag = `"${createHash("md5")
        .update(Buffer.concat(parts.map((p) => md5(p!.body))))
        .digest("hex")}-${parts.length}"`;
      received.set(url.pathname, { body: object, contentType: undefined, headers: req.headers });
      uploads.delete(uploadId);
      return res
        .writeHead(200, { "content-type": "application/xml" })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult><Key>${url.pathname.slice(1)}</Key><ETag>${etag.replaceAll('"', "&quot;")}</ETag></CompleteMultipartUploadResult>`,
        );
    }
    if (req.method !== "PUT") return res.writeHead(405).end();
    if (req.url?.startsWith("/fail")) return res.writeHead(500).end();
    if (req.url?.startsWith("/deny")) return s3Error(res, 403, "AccessDenied", "Request has expired");
    // Storage that takes its time to answer: long enough for a test to cancel the upload.
    if (req.url?.startsWith("/slow")) return setTimeout(() => res.writeHead(200).end(), 10_000);
    received.set(req.url ?? "", { body, contentType: req.headers["content-type"], headers: req.headers });
    res.writeHead(200, { etag: `"${md5(body).toString("hex")}"` }).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    received,
    /** Starts a multipart upload of `path`, as the client does with its own credentials; its id. */
    async createMultipartUpload(path: string): Promise<string> {
      const xml = await (await fetch(`${base}${path}?uploads`, { method: "POST" })).text();
      return /<UploadId>([^<]+)<\/UploadId>/.exec(xml)![1];
    },
    partsOf: (uploadId: string) => uploads.get(uploadId)?.parts,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
