/**
 * Options whose value is a set of named flags (`-sws_flags lanczos+accurate_rnd`, `-err_detect
 * crccheck+explode`): only the flags the installed ffmpeg lists for them (`ffmpeg -h full`;
 * test/runner/value-tables.test.ts keeps these tables equal to it). None reaches a file.
 */
export const FLAG_OPTIONS: Record<string, readonly string[]> = {
  sws_flags: [
    "fast_bilinear",
    "bilinear",
    "bicubic",
    "experimental",
    "neighbor",
    "area",
    "bicublin",
    "gauss",
    "sinc",
    "lanczos",
    "spline",
    "print_info",
    "accurate_rnd",
    "full_chroma_int",
    "full_chroma_inp",
    "bitexact",
    "error_diffusion",
  ],
  err_detect: ["crccheck", "bitstream", "buffer", "explode", "ignore_err", "careful", "compliant", "aggressive"],
};

/** Why the value of flag option `name` is refused, or null: flags joined by `+` or `-` (ffmpeg's flags syntax). */
export function refusedFlags(name: string, value: string): string | null {
  const allowed = FLAG_OPTIONS[name];
  const flags = value.split(/[+-]/).filter(Boolean);
  const unknown = flags.find((f) => !allowed.includes(f));
  if (flags.length === 0 || unknown !== undefined) {
    return `-${name} takes flags joined by + (${unknown === undefined ? "none given" : `"${unknown}" is not one`}; allowed: ${allowed.join(", ")})`;
  }
  return null;
}
