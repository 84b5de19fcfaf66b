import type { VideoFacts } from "../media-facts.ts";
import { canCopy, keepCopiedVideo, reencoded, webPictureFilters } from "./stream-rules.ts";

/**
 * Streams copied when the output's container holds them (and `copyVideo`); otherwise re-encoded in codecs
 * it holds: H.264 near-lossless and AAC, or in WebM VP9 and Opus.
 */
export function copyOrEncode(
  fileName: string,
  video: VideoFacts | null,
  audioCodec: string | null,
  copyVideo = true,
): string[] {
  const v = !video
    ? []
    : copyVideo && canCopy(fileName, "video", video.codec)
      ? ["-c:v", "copy", ...keepCopiedVideo(fileName, video)]
      : [...reencoded(fileName).video, "-vf", webPictureFilters(video, null).join(",")];
  const a =
    audioCodec === null ? [] : canCopy(fileName, "audio", audioCodec) ? ["-c:a", "copy"] : reencoded(fileName).audio;
  return [...v, ...a];
}
