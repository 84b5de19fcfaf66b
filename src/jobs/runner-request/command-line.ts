import { resolvePlaceholders, type PathOf } from "../request/placeholders.ts";
import { walkArguments } from "../policy/argument-policy.ts";
import { INPUT_FORMAT_WHITELIST, MAX_PIXELS } from "../policy/option-tables.ts";
import { STREAMED_INPUT_ORIGIN } from "./job-paths.ts";

/**
 * The argv the runner executes: the client's arguments with placeholders resolved, plus the
 * service's own options placed after the client's for the same file, so they win: before each input
 * `-protocol_whitelist file -format_whitelist <demuxers> -max_pixels <N>` (content cannot pick a
 * playlist or concat demuxer, nor decode a pixel bomb), before each output `-fs <bytes>`. ffprobe
 * rejects -nostdin and has no -progress, so it gets only -hide_banner and the input options.
 */
export function buildArgv(
  binary: "ffmpeg" | "ffprobe",
  args: string[],
  pathOf: PathOf,
  maxOutputBytes: number,
): string[] {
  const resolved = resolvePlaceholders(args, pathOf);
  const inputSafety = (path: string) => inputSafetyOptions(path);
  const argv =
    binary === "ffmpeg" ? ["-hide_banner", "-nostdin", "-y", "-nostats", "-progress", "pipe:3"] : ["-hide_banner"];
  for (const token of walkArguments(binary, args)) {
    if (token.kind === "positional") {
      argv.push(
        ...(binary === "ffprobe" ? inputSafety(resolved[token.index]) : ["-fs", String(maxOutputBytes)]),
        resolved[token.index],
      );
    } else if (token.kind === "flag") {
      argv.push(resolved[token.index]);
    } else {
      if (token.name === "i" && token.value !== undefined) argv.push(...inputSafety(resolved[token.valueIndex]));
      argv.push(resolved[token.index]);
      if (token.value !== undefined) argv.push(resolved[token.valueIndex]);
    }
  }
  return argv;
}

/**
 * The options the runner puts before every input: the protocols it may use (a file, or for a streamed
 * input http over the sandbox's loopback, job-paths.ts), the media demuxers, the pixel bound.
 */
export function inputSafetyOptions(path: string): string[] {
  const streamed = path.startsWith(STREAMED_INPUT_ORIGIN);
  // A split job's join reads its segments' files as one stream (the policy lets only it: argument-policy.ts).
  if (path.startsWith("concat:"))
    return [
      "-protocol_whitelist",
      "concat,file",
      "-format_whitelist",
      INPUT_FORMAT_WHITELIST.join(","),
      "-max_pixels",
      String(MAX_PIXELS),
    ];
  // A streamed input's socket buffer is kept small: what it holds was fetched, and a seek throws it away.
  const reading = streamed
    ? ["-protocol_whitelist", "http,tcp", "-recv_buffer_size", String(STREAMED_INPUT_BUFFER_BYTES)]
    : ["-protocol_whitelist", "file"];
  return [...reading, "-format_whitelist", INPUT_FORMAT_WHITELIST.join(","), "-max_pixels", String(MAX_PIXELS)];
}

const STREAMED_INPUT_BUFFER_BYTES = 128 * 1024;
