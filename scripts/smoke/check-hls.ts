// An HLS directory output end to end: a job writes a playlist and its segments into a directory output
// (in a container they reach storage through the Worker's egress handler, runner-files.ffjobs.internal),
// and its playlist and a segment download from the links the job gives, as a player would fetch them.
import type { Asset } from "../../client/src/index.ts";
import { expected, notExpected, type Finding } from "./finding.ts";
import type { RunJob } from "./smoke-job.ts";

const CHECK = "HLS directory output";
/** Every MPEG-TS packet starts with this byte. */
const TS_SYNC_BYTE = 0x47;

export async function checkHlsOutput(
  d: { runJob: RunJob; fetch: typeof fetch },
  asset: Pick<Asset, "id">,
): Promise<Finding> {
  const job = await d.runJob("HLS job", {
    inputs: { src: { type: "asset", assetId: asset.id } },
    outputs: { hls: { kind: "directory", fileName: "index.m3u8" } },
    ffmpegArgs: [
      "-i",
      "{{src}}",
      "-c:a",
      "aac",
      "-b:a",
      "32k",
      "-f",
      "hls",
      "-hls_time",
      "1",
      "-hls_playlist_type",
      "vod",
      "-hls_segment_filename",
      "{{hls/seg_%03d.ts}}",
      "{{hls}}",
    ],
  });
  if (job.status !== "completed") {
    return notExpected(
      CHECK,
      `job ${job.id} ${job.status}: ${job.errorCode} ${job.errorMessage ?? ""}`.trim(),
      "a runner stores a directory's files through the Worker (runner-files.ffjobs.internal in a container): see the container DNS finding above and the Worker's logs (npx wrangler tail)",
    );
  }
  const playlistUrl = job.outputs[0]?.downloadUrl;
  if (!playlistUrl)
    return notExpected(
      CHECK,
      `job ${job.id} completed without a playlist link`,
      "see the job (GET /v1/jobs/<id>) and the Worker's logs (npx wrangler tail)",
    );
  const playlist = await d.fetch(playlistUrl);
  const text = await playlist.text();
  if (!playlist.ok || !text.startsWith("#EXTM3U")) {
    return notExpected(
      CHECK,
      `the playlist of job ${job.id} answered HTTP ${playlist.status}${playlist.ok ? " with something that is not a playlist" : ""}`,
      "directory files are served by the Worker (/outputs/...): see the Worker's logs (npx wrangler tail)",
    );
  }
  const segmentName = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith("#"));
  if (!segmentName)
    return notExpected(
      CHECK,
      `the playlist of job ${job.id} lists no segment`,
      "see the job's result (GET /v1/jobs/<id>/result) for what ffmpeg wrote",
    );
  // As a player resolves it: relative to the playlist's own URL (the folder's token covers its files).
  // It must stay in that folder: a segment fetched from anywhere else says nothing of the job's output.
  const segmentUrl = URL.canParse(segmentName, playlistUrl) ? new URL(segmentName, playlistUrl) : null;
  const folder = new URL(".", playlistUrl);
  if (
    !segmentUrl ||
    segmentUrl.origin !== folder.origin ||
    !segmentUrl.pathname.startsWith(folder.pathname) ||
    segmentUrl.search !== folder.search
  ) {
    return notExpected(
      CHECK,
      `the playlist of job ${job.id} names ${JSON.stringify(segmentName.slice(0, 200))}, which is not a file of its own folder`,
      "a directory output's playlist lists the files the job wrote beside it: see the job's result (GET /v1/jobs/<id>/result) for what ffmpeg wrote",
    );
  }
  const segment = await d.fetch(segmentUrl.href);
  const bytes = new Uint8Array(await segment.arrayBuffer());
  if (!segment.ok || bytes[0] !== TS_SYNC_BYTE) {
    return notExpected(
      CHECK,
      `segment ${segmentName} answered HTTP ${segment.status}${segment.ok ? " with something that is not MPEG-TS" : ""}`,
      "a playlist's relative links must resolve to files of the same folder: see the Worker's logs (npx wrangler tail)",
    );
  }
  const cors = playlist.headers.get("access-control-allow-origin");
  if (cors !== "*") {
    return notExpected(
      CHECK,
      `the playlist plays here but answers Access-Control-Allow-Origin: ${cors ?? "(none)"}`,
      "web players on other sites cannot read it: something in front of the Worker changes its headers (a Transform Rule, a cache)",
    );
  }
  return expected(
    CHECK,
    `job ${job.id} wrote ${job.outputs[0].files?.length ?? "its"} files; its playlist and ${segmentName} (${bytes.length} bytes) download from the job's links`,
  );
}
