/**
 * Placeholders in job arguments: `{{name}}` stands for a declared input, output or scratch file, and
 * `{{name/file}}` for a file inside directory output `name` (HLS segments, variant playlists). This
 * module is shared by the API (validation) and the runner (resolution to paths), so both read
 * arguments alike.
 */
export const NAME_PATTERN = /^[A-Za-z0-9_]{1,64}$/;
/**
 * The names of Object.prototype's members (`__proto__`, `constructor`, `toString`, …), read from the
 * runtime itself. As a key of a plain object such a name is found without being declared, or sets the
 * object's prototype instead of a key, so it is refused wherever a client names something.
 */
export const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));
export const PROTOTYPE_NAME_MESSAGE =
  "a name may not be one of JavaScript's Object.prototype members (__proto__, constructor, toString, …)";
/** A file inside a directory output: a plain name (no slash, no leading dot); `%` for ffmpeg's patterns (`%04d`, `%v`). */
export const DIRECTORY_FILE_PATTERN = /^[A-Za-z0-9%][A-Za-z0-9._%-]{0,254}$/;
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{([A-Za-z0-9_]{1,64})(?:\/([^{}/]+))?\}\}$/;

export type PlaceholderTarget = { name: string; file?: string };

const TIME_PLACEHOLDER = /^\{\{([A-Za-z0-9_]{1,64})@(\d{1,3}(?:\.\d{1,3})?)%\}\}$/;

/**
 * `{{video@50%}}`: the time at that fraction of input `video`'s duration, in seconds (the value of
 * `-ss`: a thumbnail at the middle, whatever the length). The runner probes the input and writes
 * the number in before the command runs.
 */
export function timePlaceholder(arg: string): { name: string; percent: number } | null {
  const m = TIME_PLACEHOLDER.exec(arg);
  return m ? { name: m[1], percent: Number(m[2]) } : null;
}

/** What a whole-argument placeholder names, or null when the argument is not one. */
export function placeholderTarget(arg: string): PlaceholderTarget | null {
  const m = WHOLE_PLACEHOLDER.exec(arg);
  return m ? { name: m[1], ...(m[2] !== undefined ? { file: m[2] } : {}) } : null;
}

/** Options whose value is a filter graph: a placeholder may sit inside them (e.g. `subtitles={{subs}}`). */
export function isFilterGraphOption(arg: string): boolean {
  // By the option's name alone: ffmpeg takes any stream specifier after it (-filter:v:0, -af:a:0, -filter:0:v).
  return arg.startsWith("-") && FILTER_GRAPH_OPTIONS.has(arg.slice(1).split(":")[0].toLowerCase());
}
const FILTER_GRAPH_OPTIONS = new Set(["vf", "af", "lavfi", "filter_complex", "filter"]);

export type PlaceholderProblem = { index: number; message: string };

export type PlaceholderUse = { index: number; name: string; whole: boolean; file?: string; percent?: number };

/** Finds every placeholder, or explains why an argument's use of one is not allowed. */
export function scanPlaceholders(args: readonly string[]): { uses: PlaceholderUse[]; problems: PlaceholderProblem[] } {
  const uses: PlaceholderUse[] = [];
  const problems: PlaceholderProblem[] = [];
  args.forEach((arg, index) => {
    const whole = placeholderTarget(arg) ?? timePlaceholder(arg);
    if (whole && PROTOTYPE_NAMES.has(whole.name)) {
      problems.push({ index, message: `{{${whole.name}}}: ${PROTOTYPE_NAME_MESSAGE}` });
      return;
    }
    if (whole) {
      uses.push({ index, ...whole, whole: true });
      return;
    }
    // A join's `-i concat:{{a}}|{{b}}` names files too (the argument policy lets only a split job's join).
    const inFilter =
      index > 0 && (isFilterGraphOption(args[index - 1]) || (args[index - 1] === "-i" && arg.startsWith("concat:")));
    for (const match of arg.matchAll(PLACEHOLDER)) {
      const name = match[1];
      if (!NAME_PATTERN.test(name)) {
        problems.push({ index, message: `"{{${name}}}" is not a valid placeholder name (letters, digits, _; 1-64)` });
      } else if (PROTOTYPE_NAMES.has(name)) {
        problems.push({ index, message: `{{${name}}}: ${PROTOTYPE_NAME_MESSAGE}` });
      } else if (!inFilter) {
        problems.push({
          index,
          message: `placeholder {{${name}}} must be a whole argument, or sit inside a filter graph (-vf, -af, -filter_complex)`,
        });
      } else {
        uses.push({ index, name, whole: false });
      }
    }
  });
  return { uses, problems };
}

/** Escapes a path for use as a filter option value inside a filter graph (both escaping levels). */
export function escapeFilterPath(path: string): string {
  const optionLevel = path.replace(/[\\:']/g, (c) => `\\${c}`);
  return optionLevel.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

/** Where a name (or a file inside a directory output) is, for the command. */
export type PathOf = (name: string, file?: string) => string | undefined;

/** Replaces every placeholder with its path; embedded ones are escaped for the filter graph. */
export function resolvePlaceholders(args: readonly string[], pathOf: PathOf): string[] {
  return args.map((arg, index) => {
    const whole = placeholderTarget(arg);
    if (whole) return requirePath(pathOf, whole.name, index, whole.file);
    // A time ({{video@50%}}) is written in by the runner once it knows the duration; shown as is before.
    if (timePlaceholder(arg)) return arg;
    return arg.replace(PLACEHOLDER, (_m, name: string) => escapeFilterPath(requirePath(pathOf, name, index)));
  });
}

function requirePath(pathOf: PathOf, name: string, index: number, file?: string): string {
  const path = pathOf(name, file);
  if (path === undefined) throw new Error(`argument ${index}: {{${name}}} names no declared input or output`);
  return path;
}

/** Array-form inputs are named input0, input1, ... */
export function arrayInputName(position: number): string {
  return `input${position}`;
}

/** A file extension safe to put in a service-chosen path, taken from a file name or a URL's pathname. */
export function safeExtension(fileNameOrPath: string, fallback = "bin"): string {
  const base = fileNameOrPath.split("/").filter(Boolean).pop() ?? "";
  const dot = base.lastIndexOf(".");
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
  return /^[a-z0-9]{1,10}$/.test(ext) ? ext : fallback;
}
