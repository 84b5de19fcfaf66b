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
      const body = raw.trim().replace(/^(\s*\[[^\]]*\]\s*)+/, "").replace(/(\s*\[[^\]]*\]\s*)+$/, "");
      if (!body) continue;
      const eq = body.indexOf("=");
      const name = (eq < 0 ? body : body.slice(0, eq)).split("@")[0].trim().toLowerCase();
      const args = eq < 0 ? "" : unescapeLevel(body.slice(eq + 1));
      const positional: string[] = [];
      const options: Record<string, string> = {};
      if (args) {
        for (const part of splitTopLevel(args, ":")) {
          const kv = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(part);
          if (kv) options[kv[1].toLowerCase()] = unescapeLevel(kv[2]);
          else positional.push(unescapeLevel(part));
        }
      }
      filters.push({ name, positional, options });
    }
  }
  return filters;
}

/** Filters refused outright: they read or write files by themselves, open sockets, or load code. */
export const REFUSED_FILTERS: Record<string, string> = {
  movie: "reads files or URLs", amovie: "reads files or URLs", ladspa: "loads plugins", lv2: "loads plugins",
  frei0r: "loads plugins", frei0r_src: "loads plugins", zmq: "listens on a socket", azmq: "listens on a socket",
  sendcmd: "reads a command file", asendcmd: "reads a command file", ocr: "reads model files", flite: "reads files",
  signature: "writes files", vidstabdetect: "writes a side file", dnn_processing: "loads model files",
  dnn_detect: "loads model files", dnn_classify: "loads model files", sr: "loads model files", derain: "loads model files",
  libvmaf: "reads model files and writes logs", qrencode: "reads files",
};

/**
 * Filter options that name a file. `placeholderOnly`: the value must be exactly an input placeholder
 * (the job's own file goes there). `refused`: reads or writes files the job did not declare.
 * `positional0` says what a first positional argument is for that filter.
 */
type FileRule = { placeholderOnly?: string[]; refused?: string[]; positional0?: "placeholderOnly" | "refused" };

export const FILE_OPTIONS: Record<string, FileRule> = {
  subtitles: { placeholderOnly: ["filename", "f"], positional0: "placeholderOnly", refused: ["fontsdir"] },
  ass: { placeholderOnly: ["filename", "f"], positional0: "placeholderOnly", refused: ["fontsdir"] },
  drawtext: { placeholderOnly: ["fontfile"], refused: ["textfile"] },
  lut3d: { placeholderOnly: ["file"], positional0: "placeholderOnly" },
  lut1d: { placeholderOnly: ["file"], positional0: "placeholderOnly" },
  removelogo: { placeholderOnly: ["filename", "f"], positional0: "placeholderOnly" },
  find_rect: { placeholderOnly: ["object"] },
  cover_rect: { placeholderOnly: ["cover"] },
  sofalizer: { placeholderOnly: ["sofa"] },
  arnndn: { placeholderOnly: ["model", "m"] },
  vidstabtransform: { placeholderOnly: ["input"] },
  psnr: { refused: ["stats_file", "f"], positional0: "refused" },
  ssim: { refused: ["stats_file", "f"], positional0: "refused" },
  metadata: { refused: ["file"] },
  ametadata: { refused: ["file"] },
  ebur128: { refused: ["metadata_file"] },
};
