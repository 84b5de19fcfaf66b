/**
 * Just enough of ffmpeg's filter-graph syntax to see every filter and its options:
 * chains split by `;`, filters by `,`, `[labels]` around filters, `name@id=args`, args split by `:`
 * into `key=value` or positional values, with `\` escapes and '...' quoting at both levels.
 */
export type ParsedFilter = { name: string; positional: string[]; options: Record<string, string> };

/** Splits on `sep` outside quotes and escapes; keeps escapes/quotes for the next level. */
function splitTopLevel(text: string, seps: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length) {
      current += ch + text[++i];
    } else if (ch === "'") {
      quoted = !quoted;
      current += ch;
    } else if (!quoted && seps.includes(ch)) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** Removes one level of quoting and escaping. */
export function unescapeLevel(text: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") quoted = !quoted;
    else if (ch === "\\" && !quoted && i + 1 < text.length) out += text[++i];
    else out += ch;
  }
  return out;
}

export function parseFilterGraph(graph: string): ParsedFilter[] {
  const filters: ParsedFilter[] = [];
  for (const chain of splitTopLevel(graph, ";")) {
    for (const raw of splitTopLevel(chain, ",")) {
      const body = raw
        .trim()
        .replace(/^(\s*\[[^\]]*\]\s*)+/, "")
        .replace(/(\s*\[[^\]]*\]\s*)+$/, "");
      if (!body) continue;
      const eq = body.indexOf("=");
      const name = (eq < 0 ? body : body.slice(0, eq)).split("@")[0].trim().toLowerCase();
      const args = eq < 0 ? "" : unescapeLevel(body.slice(eq + 1));
      const positional: string[] = [];
      const options: Record<string, string> = {};
      if (args) {
        for (const part of splitTopLevel(args, ":")) {
          // As ffmpeg's av_opt_get_key_value: whitespace around the key is skipped, and a key is made of
          // letters, digits and "_-./" (so `textfile =x` is the textfile option, not a positional value).
          const kv = /^\s*([A-Za-z0-9_./-]+)\s*=([\s\S]*)$/.exec(part);
          if (kv) options[kv[1].toLowerCase()] = unescapeLevel(kv[2]);
          else positional.push(unescapeLevel(part));
        }
      }
      filters.push({ name, positional, options });
    }
  }
  return filters;
}
