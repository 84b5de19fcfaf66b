import { ownValue } from "../own-key.ts";
const BY_EXTENSION: Record<string, string> = {
  mp4: "video/mp4",
  m4v: "video/mp4",
  mov: "video/quicktime",
  mkv: "video/x-matroska",
  webm: "video/webm",
  avi: "video/x-msvideo",
  ts: "video/mp2t",
  m4s: "video/iso.segment",
  mpd: "application/dash+xml",
  flv: "video/x-flv",
  ogv: "video/ogg",
  m3u8: "application/vnd.apple.mpegurl",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  aac: "audio/aac",
  wav: "audio/wav",
  flac: "audio/flac",
  ogg: "audio/ogg",
  opus: "audio/opus",
  weba: "audio/webm",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
  srt: "application/x-subrip",
  vtt: "text/vtt",
  ass: "text/x-ssa",
  json: "application/json",
  txt: "text/plain",
};

/** The media type for a file name, from its extension; unknown extensions are plain bytes. */
export function contentTypeFor(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  const ext = dot >= 0 ? fileName.slice(dot + 1).toLowerCase() : "";
  return ownValue(BY_EXTENSION, ext) ?? "application/octet-stream";
}
