import { parseFilterGraph } from "../../src/jobs/policy/filter-graph.ts";
import { FILE_OPTIONS } from "../../src/jobs/policy/filter-tables.ts";

const PLACEHOLDER = /^\{\{[^{}]+\}\}$/;

/**
 * Files named inside a filter graph (`subtitles=subs.srt`, `ass=`, `lut3d=look.cube`, drawtext's
 * `fontfile=`: the filter options the service takes only as input placeholders) become job inputs:
 * `addFile` declares one (a local file to upload, or a URL) and returns its placeholder, which takes the
 * file's place in the graph as the user wrote it: plain, 'quoted', or with `\:` escapes.
 */
export function sendFilesInGraph(graph: string, addFile: (path: string) => string): string {
  let out = graph;
  let from = 0;
  for (const f of parseFilterGraph(graph)) {
    const rule = FILE_OPTIONS[f.name];
    if (!rule?.placeholderOnly) continue;
    const named = rule.placeholderOnly.map((k) => f.options[k]).filter((v): v is string => v !== undefined);
    if (rule.positional0 === "placeholderOnly" && f.positional[0] !== undefined) named.push(f.positional[0]);
    const filterAt = out.indexOf(f.name, from);
    if (filterAt >= 0) from = filterAt;
    for (const path of named) {
      if (PLACEHOLDER.test(path)) continue;
      const written = rawForms(path)
        .map((form) => ({ form, at: out.indexOf(form, from) }))
        .find((w) => w.at >= 0);
      if (!written)
        throw new Error(
          `ffjobs: could not find ${path} in the filter graph as written; name the file without escapes (or in 'quotes')`,
        );
      const placeholder = addFile(path);
      out = out.slice(0, written.at) + placeholder + out.slice(written.at + written.form.length);
      from = written.at + placeholder.length;
    }
  }
  return out;
}

/**
 * How a path can be written in a graph, most specific first: quoted, quoted with its `:` escaped for
 * the filter's options, escaped for both levels (`\\:`), escaped once, plain.
 */
function rawForms(path: string): string[] {
  const once = path.replace(/[\\':]/g, (c) => `\\${c}`);
  return [`'${path}'`, `'${once}'`, path.replace(/:/g, "\\\\:"), once, path];
}
