import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { startStaticServer } from "../support/static-server.ts";

/**
 * A web player nobody here wrote: hls.js (the player most sites use for HLS) in Debian's Chromium, on
 * a page of another origin (another loopback port), playing an HLS ladder job's master playlist URL
 * as the job gives it. It reads the playlists and segments with XHR, so it needs CORS on every file.
 */
const { fx, local } = useLocalStack();
const root = resolve(import.meta.dirname, "../..");
const pageDir = mkdtempSync(join(tmpdir(), "ffjobs-hls-page-"));
let page: Awaited<ReturnType<typeof startStaticServer>>;
let browser: Browser;

// The player's page: plays the rendition it is given first, then asks for the other one, and keeps
// what hls.js reported (levels, the rendition of each buffered fragment, errors) for the test to read.
const PLAYER = `
const video = document.querySelector("video");
const seen = (window.__player = { levels: 0, fragmentLevels: [], errors: [] });
const hls = new Hls({ enableWorker: false });
hls.on(Hls.Events.MANIFEST_PARSED, (_, data) => {
  seen.levels = data.levels.map((l) => l.height);
  hls.currentLevel = 0;
  video.play();
});
hls.on(Hls.Events.FRAG_BUFFERED, (_, data) => {
  seen.fragmentLevels.push(data.frag.level);
  if (data.frag.level === 0 && hls.nextLevel !== 1) hls.nextLevel = 1;
});
hls.on(Hls.Events.ERROR, (_, data) => seen.errors.push(data.type + ":" + data.details + (data.fatal ? ":fatal" : "")));
hls.loadSource(decodeURIComponent(location.hash.slice(1)));
hls.attachMedia(video);
`;

// The captions page: shows the first subtitle rendition hls.js lists, and keeps the cues the video's
// text track received and whether it is showing.
const CAPTIONS = `
const video = document.querySelector("video");
const seen = (window.__player = { subtitleTracks: [], cues: [], showing: false, errors: [] });
const hls = new Hls({ enableWorker: false });
hls.on(Hls.Events.SUBTITLE_TRACKS_UPDATED, (_, data) => {
  seen.subtitleTracks = data.subtitleTracks.map((t) => ({ name: t.name, lang: t.lang, groupId: t.groupId }));
  hls.subtitleDisplay = true;
  hls.subtitleTrack = 0;
});
hls.on(Hls.Events.MANIFEST_PARSED, () => video.play());
hls.on(Hls.Events.ERROR, (_, data) => seen.errors.push(data.type + ":" + data.details + (data.fatal ? ":fatal" : "")));
setInterval(() => {
  const track = [...video.textTracks].find((t) => t.mode === "showing");
  seen.showing = Boolean(track);
  seen.cues = track && track.cues ? [...track.cues].map((c) => c.text) : [];
}, 100);
hls.loadSource(decodeURIComponent(location.hash.slice(1)));
hls.attachMedia(video);
`;

beforeAll(async () => {
  copyFileSync(join(root, "node_modules/hls.js/dist/hls.min.js"), join(pageDir, "hls.min.js"));
  writeFileSync(join(pageDir, "player.js"), PLAYER);
  writeFileSync(join(pageDir, "captions.js"), CAPTIONS);
  writeFileSync(
    join(pageDir, "index.html"),
    '<!doctype html><video muted playsinline></video><script src="hls.min.js"></script><script src="player.js"></script>',
  );
  writeFileSync(
    join(pageDir, "captions.html"),
    '<!doctype html><video muted playsinline></video><script src="hls.min.js"></script><script src="captions.js"></script>',
  );
  writeFileSync(join(fx.dir, "hls-captions.srt"), "1\n00:00:00,200 --> 00:00:02,500\nHello from a sidecar\n");
  page = await startStaticServer(pageDir);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--autoplay-policy=no-user-gesture-required"],
  });
});
afterAll(async () => {
  await browser?.close();
  await page?.close();
  rmSync(pageDir, { recursive: true, force: true });
});

describe("an HLS ladder in a web player on another origin", () => {
  it("plays both renditions in hls.js from the master playlist URL", async () => {
    const job = await local.runToEnd({
      mode: "preset",
      preset: "hls-ladder",
      inputs: { video: { type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` } },
      params: { renditions: [144, 240], segmentSeconds: 1 },
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const master = new URL(job.outputs[0].downloadUrl);
    expect(master.origin).not.toBe(new URL(page.url).origin);

    const tab = await browser.newPage();
    const failedRequests: string[] = [];
    // net::ERR_ABORTED is the page's own cancel (hls.js aborts a fragment's load when it switches level, as
    // this page makes it do; CI saw it): a refused or failed request (CORS, a 4xx, a reset) says otherwise.
    tab.on("requestfailed", (r) => {
      if (r.failure()?.errorText !== "net::ERR_ABORTED") failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`);
    });
    await tab.goto(`${page.url}/index.html#${encodeURIComponent(master.href)}`);
    await tab.waitForFunction(
      "(window.__player.fragmentLevels.includes(1) && document.querySelector('video').currentTime > 1) || window.__player.errors.some((e) => e.endsWith(':fatal'))",
      null,
      { timeout: 30_000 },
    );
    const seen = (await tab.evaluate("window.__player")) as {
      levels: number[];
      fragmentLevels: number[];
      errors: string[];
    };
    // No network error of any kind (a CORS refusal is one), nothing fatal. hls.js reports, and steps over
    // itself, the few milliseconds before a rendition's first frame (bufferSeekOverHole): not a failure.
    // Not "networkError:aborted" (hls.js's INTERNAL_ABORTED: its own call to abort a loader, as on a level
    // switch; CI saw it once): a refused or failed request has other details, and fails failedRequests too.
    expect(
      seen.errors.filter((e) => (e.startsWith("networkError") && e !== "networkError:aborted") || e.endsWith(":fatal")),
    ).toEqual([]);
    expect(failedRequests).toEqual([]);
    expect(seen.levels).toEqual([144, 240]);
    expect(new Set(seen.fragmentLevels)).toEqual(new Set([0, 1]));
    expect(await tab.evaluate("document.querySelector('video').currentTime")).toBeGreaterThan(1);
    await tab.close();
  }, 120_000);

  it("shows a WebVTT subtitle rendition, named in the master playlist with its language", async () => {
    const job = await local.runToEnd({
      mode: "preset",
      preset: "hls-ladder",
      inputs: {
        video: { type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` },
        subtitles: { type: "url", url: `${local.media.url}/hls-captions.srt` },
      },
      params: { renditions: [144, 240], segmentSeconds: 1 },
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const tab = await browser.newPage();
    const failedRequests: string[] = [];
    tab.on("requestfailed", (r) => failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`));
    await tab.goto(`${page.url}/captions.html#${encodeURIComponent(job.outputs[0].downloadUrl)}`);
    await tab.waitForFunction(
      "(window.__player.showing && window.__player.cues.length > 0) || window.__player.errors.some((e) => e.endsWith(':fatal'))",
      null,
      { timeout: 30_000 },
    );
    const seen = (await tab.evaluate("window.__player")) as {
      subtitleTracks: { name: string; lang: string; groupId: string }[];
      cues: string[];
      errors: string[];
    };
    expect(
      seen.errors.filter(
        (e) => e.endsWith(":fatal") || (e.startsWith("networkError:") && e !== "networkError:aborted"),
      ),
    ).toEqual([]);
    expect(failedRequests).toEqual([]);
    expect(seen.subtitleTracks.length).toBeGreaterThan(0);
    expect(seen.cues).toContain("Hello from a sidecar");
    await tab.close();
  }, 120_000);

  it("answers a player's preflight and its ranged reads with CORS headers", async () => {
    const job = await local.runToEnd({
      mode: "preset",
      preset: "hls-ladder",
      inputs: { video: { type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` } },
      params: { renditions: [144], segmentSeconds: 1 },
    });
    const segment = job.outputs[0].files.find((f: { path: string }) => f.path.endsWith(".ts"));
    const origin = page.url;
    const preflight = await fetch(segment.downloadUrl, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "range" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toMatch(/GET/);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/range/i);
    const ranged = await fetch(segment.downloadUrl, { headers: { Origin: origin, Range: "bytes=0-187" } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("access-control-allow-origin")).toBe("*");
    expect(ranged.headers.get("access-control-expose-headers")).toMatch(/content-range/);
    await ranged.body?.cancel();
    // A refused link carries the header too, so the player can read why instead of a bare CORS failure.
    const refused = await fetch(segment.downloadUrl.replace(/\/[^/]+\/([^/]+)$/, "/0.AAAA/$1"), {
      headers: { Origin: origin },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
  }, 120_000);
});
