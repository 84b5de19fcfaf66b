/**
 * Text from a file's bytes (ffmpeg's error lines quote a file's metadata) made safe to show: control
 * characters (C0 but tab, DEL, C1: U+009B is a terminal's CSI) and the bidirectional overrides and
 * isolates (which reorder what a reader sees) become U+FFFD.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function printableText(text: string): string {
  return text.replace(UNSAFE, "\ufffd");
}
