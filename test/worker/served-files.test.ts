import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { directoryFileUrls } from "../../src/storage/directory-files.ts";
import { localDownloadUrl } from "../../src/storage/local-downloads.ts";

/**
 * Files served from the API's own origin (a directory output's files, a local stack's downloads):
 * every answer, whatever its status, carries nosniff and the CSP sandbox (206 and
 * 416 answers lacked them), and conditional and HEAD requests are answered as RFC 9110 says.
 */
const BODY = "#EXTM3U\n#EXT-X-VERSION:3\n";
const jobId = crypto.randomUUID();
let urls: {
  directory: { file: string; missing: string; forged: string };
  local: { file: string; missing: string; forged: string };
};

beforeAll(async () => {
  const storage = loadConfig(env).storage;
  await env.BUCKET.put(`outputs/${jobId}/hls/index.m3u8`, BODY, {
    httpMetadata: { contentType: "application/vnd.apple.mpegurl" },
  });
  const [file, missing] = await directoryFileUrls(
    storage,
    "https://ffjobs.test",
    jobId,
    "hls",
    [
      { path: "index.m3u8", size: BODY.length },
      { path: "gone.ts", size: 1 },
    ],
    600,
  );
  const local = (key: string) => localDownloadUrl(storage, storage.s3Endpoint!, key, Date.now() + 600_000);
  const forge = (url: string) => url.replace(/\/(\d+)\.[A-Za-z0-9_-]{43}\//, (_, exp) => `/${exp}.${"A".repeat(43)}/`);
  urls = {
    directory: { file: file.downloadUrl, missing: missing.downloadUrl, forged: forge(file.downloadUrl) },
    local: {
      file: await local(`outputs/${jobId}/hls/index.m3u8`),
      missing: await local(`outputs/${jobId}/hls/gone.ts`),
      forged: forge(await local(`outputs/${jobId}/hls/index.m3u8`)),
    },
  };
});

const get = (url: string, init: RequestInit = {}) => exports.default.fetch(new Request(url, init));

function expectSecured(res: Response) {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
}

describe.each(["directory", "local"] as const)(
  "every answer of a served file carries nosniff and the CSP sandbox (%s)",
  (kind) => {
    it("200, and 206 for a range", async () => {
      const whole = await get(urls[kind].file);
      expect(whole.status).toBe(200);
      expect(await whole.text()).toBe(BODY);
      expectSecured(whole);
      const part = await get(urls[kind].file, { headers: { range: "bytes=1-6" } });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-range")).toBe(`bytes 1-6/${BODY.length}`);
      expect(await part.text()).toBe(BODY.slice(1, 7));
      expectSecured(part);
    });

    it("416 for a range past the end", async () => {
      const res = await get(urls[kind].file, { headers: { range: `bytes=${BODY.length}-` } });
      expect(res.status).toBe(416);
      expect(res.headers.get("content-range")).toBe(`bytes */${BODY.length}`);
      expectSecured(res);
    });

    it("304 when the client's copy is current (If-None-Match)", async () => {
      const etag = (await get(urls[kind].file)).headers.get("etag");
      expect(etag).toMatch(/^"[^"]+"$/);
      const res = await get(urls[kind].file, { headers: { "if-none-match": etag! } });
      expect(res.status).toBe(304);
      expect(await res.text()).toBe("");
      expectSecured(res);
      expect((await get(urls[kind].file, { headers: { "if-none-match": '"other"' } })).status).toBe(200);
    });

    it("HEAD: the whole file's length, no body", async () => {
      const res = await get(urls[kind].file, { method: "HEAD" });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-length")).toBe(String(BODY.length));
      expect(await res.text()).toBe("");
      expectSecured(res);
    });

    it("403 for a forged token, 404 for a missing file", async () => {
      const forged = await get(urls[kind].forged);
      expect(forged.status).toBe(403);
      expectSecured(forged);
      const missing = await get(urls[kind].missing);
      expect(missing.status).toBe(404);
      expectSecured(missing);
    });
  },
);
