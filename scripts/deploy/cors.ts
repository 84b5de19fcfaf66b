// The bucket's CORS rule. The dashboard (served by the Worker at /dashboard/) uploads with a presigned
// PUT straight to R2 (a large file part by part, reading each part's ETag to complete the upload) and
// previews outputs from presigned GETs: cross-origin requests from the Worker's origin to
// <account>.r2.cloudflarestorage.com, which R2 answers only if a rule allows them.

/** How long a browser may cache the preflight answer. */
const PREFLIGHT_CACHE_SECONDS = 3600;

/** In the format of `wrangler r2 bucket cors set --file` (R2's API, not S3's CORSRules). */
export function corsRules(origins: string[]) {
  return {
    rules: [
      {
        // If-None-Match: an upload URL is signed with it (src/storage/upload-once.ts), so the browser sends it.
        allowed: { origins, methods: ["GET", "HEAD", "PUT"], headers: ["Content-Type", "If-None-Match"] },
        exposeHeaders: ["ETag", "Content-Length", "Content-Range"],
        maxAgeSeconds: PREFLIGHT_CACHE_SECONDS,
      },
    ],
  };
}

/**
 * The origins to allow: the Worker's workers.dev URL from `wrangler deploy`'s output file, plus any
 * `--origin` given (a custom domain). An origin is scheme://host[:port], nothing after it.
 */
export function dashboardOrigins(deployTargets: string[], extra: string[]): string[] {
  const origins = [...deployTargets.filter((t) => /^https:\/\/[^/]+\.workers\.dev\/?$/.test(t)), ...extra].map(
    (u) => new URL(u).origin,
  );
  return [...new Set(origins)];
}

/** wrangler writes one JSON entry per line to WRANGLER_OUTPUT_FILE_PATH; the deploy's lists its URLs. */
export function deployTargetsFromOutput(ndjson: string): string[] {
  const entries = ndjson
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type?: string; targets?: string[] });
  return entries.filter((e) => e.type === "deploy").flatMap((e) => e.targets ?? []);
}
