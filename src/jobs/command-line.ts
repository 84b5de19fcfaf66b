import { resolvePlaceholders, type PathOf } from "./placeholders.ts";
import { walkArguments } from "./policy/argument-policy.ts";
import { INPUT_FORMAT_WHITELIST, MAX_PIXELS } from "./policy/option-tables.ts";

/**
 * The argv the runner executes: the client's arguments with placeholders resolved, plus the
 * service's own options placed after the client's for the same file, so they win: before each input
 * `-protocol_whitelist file -format_whitelist <demuxers> -max_pixels <N>` (content cannot pick a
 * playlist or concat demuxer, nor decode a pixel bomb), before each output `-fs <bytes>`. ffprobe
 * rejects -nostdin and has no -progress, so it gets only -hide_banner and the input options.
 */
export function buildArgv(binary: "ffmpeg" | "ffprobe", args: string[], pathOf: PathOf, maxOutputBytes: number): string[] {
  const resolved = resolvePlaceholders(args, pathOf);
  const inputSafety = ["-protocol_whitelist", "file", "-format_whitelist", INPUT_FORMAT_WHITELIST.join(","), "-max_pixels", String(MAX_PIXELS)];
  const argv = binary === "ffmpeg" ? ["-hide_banner", "-nostdin", "-y", "-nostats", "-progress", "pipe:3"] : ["-hide_banner"];
  for (const token of walkArguments(binary, args)) {
    if (token.kind === "positional") {
      argv.push(...(binary === "ffprobe" ? inputSafety : ["-fs", String(maxOutputBytes)]), resolved[token.index]);
    } else if (token.kind === "flag") {
      argv.push(resolved[token.index]);
    } else {
      if (token.name === "i") argv.push(...inputSafety);
      argv.push(resolved[token.index]);
      if (token.value !== undefined) argv.push(resolved[token.valueIndex]);
    }
  }
  return argv;
}

