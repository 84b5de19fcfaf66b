// /llms.txt and /llms-full.txt (llmstxt.org): what an agent reads to use ffjobs, made from docs/.
//   node scripts/llms-text.ts          writes dashboard/public/llms.txt and llms-full.txt (served as assets)
// test/unit/llms-text.test.ts fails when the files differ from what docs/ makes now.
import { lstatSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The docs an agent needs, in the order it reads them, each with what it is for. */
export const LLMS_DOCS = [
  ["api.md", "the HTTP API: jobs (raw ffmpeg/ffprobe, presets, steps), inputs, outputs, waiting, webhooks, limits"],
  ["errors.md", "every error code, its HTTP status or job status, and what to do"],
  ["webhooks.md", "signed webhook events and how to verify them"],
  ["architecture.md", "how a job flows through the Worker, its Durable Object, the queue and the runner"],
  ["security.md", "the argument policy and sandbox: what a command may and may not do"],
  ["deploy.md", "deploying on your own Cloudflare account"],
  ["capacity.md", "what one job costs the platform, and what binds first"],
  ["benchmarks.md", "measured figures against bare ffmpeg"],
] as const;

const SUMMARY =
  "An asynchronous FFmpeg/FFprobe job service with an HTTP API on Cloudflare Workers: create a job with raw " +
  "ffmpeg or ffprobe arguments or a named preset, named inputs (URLs or uploads) and named outputs; it runs " +
  "in the background; wait, stream progress or receive a signed webhook; download the stored outputs.";

/** A doc's text: a plain file only, so a link placed in docs/ cannot publish a file from elsewhere. */
function readDoc(path: string): string {
  if (!lstatSync(path).isFile()) throw new Error(`${path} is not a plain file (a symbolic link?): not published`);
  return readFileSync(path, "utf8");
}

/** The two texts, made from the docs under `root`. */
export function llmsTexts(root: string): { index: string; full: string } {
  const docs = LLMS_DOCS.map(([file, about]) => ({
    file,
    about,
    text: readDoc(join(root, "docs", file)),
  }));
  const index = [
    "# ffjobs",
    "",
    `> ${SUMMARY}`,
    "",
    "Every request takes `Authorization: Bearer <API key>`; `GET /openapi.json` is the machine-readable contract,",
    "`GET /v1/presets` lists the presets with their parameters and policies. The whole documentation, in one",
    "file: /llms-full.txt. Agents can also use the MCP server at /mcp (Streamable HTTP, the same key).",
    "",
    "## Docs",
    "",
    ...docs.map((d) => `- [${titleOf(d.text, d.file)}](/llms-full.txt#${d.file}): ${d.about}`),
    "",
    "## Optional",
    "",
    "- [OpenAPI document](/openapi.json): every operation, its schemas and error codes",
    "",
  ].join("\n");
  const full = [
    `# ffjobs: the documentation`,
    "",
    `> ${SUMMARY}`,
    "",
    ...docs.flatMap((d) => [`<!-- ${d.file} -->`, "", d.text.trimEnd(), ""]),
  ].join("\n");
  return { index, full };
}

const titleOf = (text: string, file: string) => /^# (.+)$/m.exec(text)?.[1] ?? file;

/** Where the Worker's assets are served from (wrangler.toml's [assets]): /llms.txt and /llms-full.txt. */
export const LLMS_DIR = "dashboard/public";

if (import.meta.main) {
  const root = resolve(import.meta.dirname, "..");
  const { index, full } = llmsTexts(root);
  writeFileSync(join(root, LLMS_DIR, "llms.txt"), index);
  writeFileSync(join(root, LLMS_DIR, "llms-full.txt"), full);
}
