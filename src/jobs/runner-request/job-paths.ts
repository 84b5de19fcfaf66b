import { safeExtension, type PathOf } from "../request/placeholders.ts";

export type PathInput = { name: string; url: string; fileName: string; trusted: boolean };
export type PathOutput = { name: string; fileName: string; kind?: "directory" };

/**
 * Where each name of a job lives in its folder, relative to it: `in/<name>.<ext>` (the extension of
 * the input's URL path or uploaded file name), `out/<name>.<ext>`, a directory output's folder
 * `out/<name>/`, scratch files `work/<name>.<ext>`. The runner lays out jobs by it, and a dry run
 * shows the same paths.
 */
export function jobLayout(inputs: PathInput[], outputs: PathOutput[], scratch: { name: string; fileName: string }[]) {
  const relative = new Map<string, string>();
  const directories = new Map<string, string>();
  const withExt = (dir: string, name: string, fileName: string) => {
    const ext = safeExtension(fileName, "");
    return `${dir}/${ext ? `${name}.${ext}` : name}`;
  };
  for (const input of inputs)
    relative.set(
      input.name,
      `in/${input.name}.${safeExtension(input.trusted ? input.fileName : new URL(input.url).pathname)}`,
    );
  for (const file of scratch) relative.set(file.name, withExt("work", file.name, file.fileName));
  for (const output of outputs) {
    if (output.kind === "directory") {
      relative.set(output.name, `out/${output.name}`);
      directories.set(output.name, output.fileName);
    } else relative.set(output.name, withExt("out", output.name, output.fileName));
  }
  return { relative, directories };
}

/**
 * Where a sandboxed command reads a streamed input: the relay inside its network namespace
 * (container/bin/input-relay.pl), which carries the request to the runner's input server. The path
 * mirrors the folder's: `http://127.0.0.1:8080/in/video.mp4` for `/job/in/video.mp4`.
 */
export const STREAMED_INPUT_PORT = 8080;
export const STREAMED_INPUT_ORIGIN = `http://127.0.0.1:${STREAMED_INPUT_PORT}`;

/** The paths a command is given, under `root` (`/job` in the sandbox); `streamed` inputs by URL. */
export function visiblePaths(
  layout: ReturnType<typeof jobLayout>,
  root: string,
  streamed: ReadonlySet<string> = new Set(),
): PathOf {
  return (name, file) => {
    const at = layout.relative.get(name);
    if (at === undefined || (file !== undefined && !layout.directories.has(name))) return undefined;
    if (streamed.has(name)) return `${STREAMED_INPUT_ORIGIN}/${at}`;
    const inside = layout.directories.has(name) ? `/${file ?? layout.directories.get(name)}` : "";
    return `${root}/${at}${inside}`;
  };
}
