/**
 * Cutting what the service stores to a number of bytes (UTF-8, as D1 stores text), never halfway
 * through a character: D1 refuses a row over 2,000,000 bytes (src/platform/d1-row-size.ts), and a
 * JavaScript string's length counts UTF-16 units, up to a third of its bytes.
 */
const encoder = new TextEncoder();

export const utf8Bytes = (text: string) => encoder.encode(text).length;

/** The longest start of `text` of at most `maxBytes` bytes. */
export function headBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back off to the start of a character (a continuation byte is 10xxxxxx).
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** The longest end of `text` of at most `maxBytes` bytes. */
export function tailBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return new TextDecoder().decode(bytes.subarray(start));
}

/** `value` as JSON if that is at most `maxBytes` bytes, else null (stored as nothing rather than refused with the row). */
export function boundedJson(value: unknown, maxBytes: number): string | null {
  if (value === null || value === undefined) return null;
  const json = JSON.stringify(value);
  return utf8Bytes(json) <= maxBytes ? json : null;
}
