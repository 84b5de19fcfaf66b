import { ENCODER_PARAM_OPTIONS, refusedEncoderParam } from "./encoder-params.ts";
import {
  DIRECTORY_FILE_PATTERN,
  isFilterGraphOption,
  placeholderTarget,
  timePlaceholder,
} from "../request/placeholders.ts";
import { parseFilterGraph, type ParsedFilter } from "./filter-graph.ts";
import { ALLOWED_FILTERS, FILE_OPTIONS, MAX_SOURCE_SECONDS, SOURCE_DURATION_OPTIONS } from "./filter-tables.ts";
import { durationSeconds } from "./durations.ts";
import { refusedBitstreamFilters } from "./bitstream-filters.ts";
import { FLAG_OPTIONS, refusedFlags } from "./flag-options.ts";
import {
  ALLOWED_FORMATS,
  ALLOWED_HLS_FLAGS,
  DIRECTORY_FORMATS,
  FFMPEG_FLAGS,
  FFMPEG_VALUE_OPTIONS,
  FFPROBE_FLAGS,
  FFPROBE_VALUE_OPTIONS,
  MAX_STATS_PERIOD_SECONDS,
  MAX_STREAM_LOOP,
  REFUSED_FLAGS,
  REFUSED_FORMAT_HINTS,
  REFUSED_OPTIONS,
} from "./option-tables.ts";
import { ownValue } from "../../own-key.ts";

export type PolicyIssue = { index: number; message: string };
/**
 * Names a command may read and write; `scratch` (work files) is also in both; `directories` are
 * the outputs whose files `{{name/file}}` may name.
 */
export type DeclaredNames = {
  inputs: ReadonlySet<string>;
  outputs: ReadonlySet<string>;
  scratch?: ReadonlySet<string>;
  directories?: ReadonlySet<string>;
};

/** Whether `arg` is a placeholder for one of `allowed` (a `{{dir/file}}` only inside a directory output). */
function isPlaceholderFor(arg: string | undefined, allowed: ReadonlySet<string>, names: DeclaredNames): boolean {
  const t = arg === undefined ? null : placeholderTarget(arg);
  if (!t || !allowed.has(t.name)) return false;
  return t.file === undefined || (names.directories?.has(t.name) === true && DIRECTORY_FILE_PATTERN.test(t.file));
}

const NUL_MESSAGE =
  "an argument may not contain a NUL character (U+0000): ffmpeg receives its arguments as C strings, which end at the first NUL";
/** A UTF-16 surrogate without its pair (matched by code unit: no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATE_MESSAGE =
  "an argument must be well-formed Unicode (a lone surrogate such as \\ud800 has no UTF-8 form, so ffmpeg could not receive it as sent)";
const WHOLE = /^\{\{([A-Za-z0-9_]{1,64})\}\}$/;
const tables = {
  ffmpeg: { flags: new Set<string>(FFMPEG_FLAGS), values: new Set<string>(FFMPEG_VALUE_OPTIONS) },
  ffprobe: { flags: new Set<string>(FFPROBE_FLAGS), values: new Set<string>(FFPROBE_VALUE_OPTIONS) },
};
const FORMATS = new Set<string>(ALLOWED_FORMATS);
const REFUSED_FLAG_SET = new Set<string>(REFUSED_FLAGS);

/** `-c:v` → `c`, `-b:a:0` → `b`, `-metadata:s:a:0` → `metadata`. */
export function optionBase(arg: string): string {
  return arg.slice(1).split(":")[0].toLowerCase();
}

export type ArgToken =
  | { kind: "flag"; index: number; name: string }
  | { kind: "option"; index: number; name: string; valueIndex: number; value: string | undefined }
  | { kind: "positional"; index: number; value: string };

/** A token ffmpeg reads as an option: a dash and more, but not a negative number (`-1` is a value). */
const isOptionLike = (arg: string) => arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg);

/**
 * Splits arguments the way ffmpeg/ffprobe read them: flags, options with their value, and
 * positional tokens (outputs for ffmpeg, the input for ffprobe). Unknown options are assumed to
 * take no value (they are refused anyway).
 */
export function walkArguments(binary: "ffmpeg" | "ffprobe", args: readonly string[]): ArgToken[] {
  const { flags, values } = tables[binary];
  const tokens: ArgToken[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!isOptionLike(arg)) {
      tokens.push({ kind: "positional", index: i, value: arg });
      continue;
    }
    const name = optionBase(arg);
    const takesValue = values.has(name) || (Object.hasOwn(REFUSED_OPTIONS, name) && !REFUSED_FLAG_SET.has(name));
    if (!takesValue || flags.has(name)) {
      tokens.push({ kind: "flag", index: i, name });
      // An option the policy does not know (refused as such): its next token, unless that is an option or a
      // placeholder, is taken as its value, so one unknown option is one error and not a second about its value.
      const next = args[i + 1];
      if (
        !flags.has(name) &&
        !Object.hasOwn(REFUSED_OPTIONS, name) &&
        next !== undefined &&
        !isOptionLike(next) &&
        !next.includes("{{")
      )
        i++;
      continue;
    }
    tokens.push({ kind: "option", index: i, name, valueIndex: i + 1, value: args[i + 1] });
    i++;
  }
  return tokens;
}

/**
 * Checks arguments against the policy: only known options; `-i` takes an input placeholder; every
 * positional token is an output placeholder (ffmpeg) or input placeholder (ffprobe); formats, filters
 * and option values that reach files, sockets, devices or plugins are refused.
 */
export function checkArguments(
  binary: "ffmpeg" | "ffprobe",
  args: readonly string[],
  names: DeclaredNames,
  service: { concatInputs?: boolean } = {},
): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  const refuse = (index: number, message: string) => issues.push({ index, message });
  // execve takes C strings: a NUL would end the argument there (Node's spawn refuses it outright, which
  // failed the job INTERNAL), and SQL's text functions stop at it too (the job list's command line).
  // A lone surrogate has no UTF-8 form: ffmpeg would get U+FFFD instead, and D1 hands it back as three.
  for (const [index, arg] of args.entries()) {
    if (arg.includes("\u0000")) refuse(index, NUL_MESSAGE);
    else if (LONE_SURROGATE.test(arg)) refuse(index, LONE_SURROGATE_MESSAGE);
  }
  const { flags, values } = tables[binary];
  let lastFormat: string | null = null;
  let lastFormatIndex = -1;
  for (const token of walkArguments(binary, args)) {
    if (token.kind === "positional") {
      checkPositional(binary, token.value, token.index, names, lastFormat, refuse);
      lastFormat = null;
      continue;
    }
    const arg = args[token.index];
    const name = token.name;
    const refusal = ownValue(REFUSED_OPTIONS, name);
    if (refusal) {
      refuse(token.index, `${arg} is not allowed: ${refusal}`);
      continue;
    }
    if (token.kind === "flag") {
      if (!flags.has(name)) refuse(token.index, `${arg} is not a supported option (GET /v1/policy lists them)`);
      continue;
    }
    const { value, valueIndex } = token;
    if (!values.has(name)) continue;
    if (value === undefined) {
      refuse(token.index, `${arg} needs a value`);
      continue;
    }
    if (name === "i") {
      const joined = service.concatInputs ? concatParts(value) : null;
      if (
        joined
          ? !joined.every((part) => isPlaceholderFor(part, names.inputs, names))
          : !isPlaceholderFor(value, names.inputs, names)
      ) {
        refuse(valueIndex, `the value of -i must be an input placeholder like {{video}}`);
      }
      // A playlist demuxer would read whatever files the playlist names.
      if (lastFormat !== null && MANY_FILE_FORMATS.has(lastFormat))
        refuse(lastFormatIndex, `format "${lastFormat}" is for outputs only`);
      lastFormat = null;
    } else if (name === "f") {
      lastFormat = value.toLowerCase();
      lastFormatIndex = valueIndex;
      if (!FORMATS.has(lastFormat))
        refuse(
          valueIndex,
          `format "${value}" is not allowed: ${ownValue(REFUSED_FORMAT_HINTS, lastFormat) ?? "GET /v1/policy lists the formats"}`,
        );
    } else if (isFilterGraphOption(arg)) {
      for (const message of checkFilterGraph(value, names)) refuse(valueIndex, message);
    } else if (name === "ss" && timePlaceholder(value)) {
      // {{input@P%}}: checked against the declared inputs with the job's other placeholders.
    } else if (name === "pass") {
      if (!["1", "2", "3"].includes(value)) refuse(valueIndex, `-pass must be 1, 2 or 3`);
    } else if (name === "passlogfile") {
      const m = WHOLE.exec(value);
      if (!m || !names.scratch?.has(m[1]))
        refuse(valueIndex, `-passlogfile must be a scratch placeholder like {{passlog}} (declare it in "scratch")`);
    } else if (name === "hls_segment_filename" || name === "segment_list") {
      const t = placeholderTarget(value);
      if (!t?.file || !isPlaceholderFor(value, names.outputs, names))
        refuse(
          valueIndex,
          `-${name} must name a file in a directory output, like {{out/${name === "segment_list" ? "list.m3u8" : "seg_%03d.ts"}}}`,
        );
    } else if (name === "segment_format") {
      if (!FORMATS.has(value) || MANY_FILE_FORMATS.has(value))
        refuse(valueIndex, `-segment_format must be a single-file format (GET /v1/policy lists the formats)`);
    } else if (name === "bsf") {
      const problem = refusedBitstreamFilters(value);
      if (problem) refuse(valueIndex, problem);
    } else if (Object.hasOwn(FLAG_OPTIONS, name)) {
      const problem = refusedFlags(name, value);
      if (problem) refuse(valueIndex, problem);
    } else if (name === "master_pl_name" || name === "hls_fmp4_init_filename") {
      if (!DIRECTORY_FILE_PATTERN.test(value))
        refuse(valueIndex, `-${name} must be a plain file name (it is written next to the playlist)`);
    } else if (name === "var_stream_map") {
      if (!/^[A-Za-z0-9:, _]+$/.test(value))
        refuse(valueIndex, `-var_stream_map takes stream specifiers like "v:0,a:0 v:1,a:1"`);
    } else if (name === "hls_flags") {
      const unknown = value.split(/[+-]/).filter((f) => f && !HLS_FLAGS.has(f));
      if (unknown.length)
        refuse(valueIndex, `hls flag "${unknown[0]}" is not allowed (allowed: ${[...HLS_FLAGS].join(", ")})`);
    } else if (name === "stream_loop") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > MAX_STREAM_LOOP)
        refuse(valueIndex, `-stream_loop must be 0-${MAX_STREAM_LOOP} (no endless loops)`);
    } else if (name === "stats_period") {
      const seconds = durationSeconds(value);
      if (seconds === null || seconds <= 0 || seconds > MAX_STATS_PERIOD_SECONDS)
        refuse(
          valueIndex,
          `-stats_period must be a duration up to ${MAX_STATS_PERIOD_SECONDS} s (progress and the stall watch read ffmpeg's reports)`,
        );
    } else if (ENCODER_PARAM_OPTIONS.has(name)) {
      const key = refusedEncoderParam(name as "x264-params", value);
      if (key !== null)
        refuse(
          valueIndex,
          `${arg} parameter "${key}" is not allowed: only parameters that tune the encoding are (files such as stats, csv or dump-yuv never)`,
        );
    } else if (value.includes("{{")) {
      refuse(valueIndex, `placeholders belong in -i, in output positions, or inside filter graphs`);
    }
  }
  return issues;
}

/**
 * `concat:{{a}}|{{b}}`: inputs read one after another as one stream (the concat protocol). Only a split
 * job's join, which the service builds (src/jobs/split/), may: its parts are MPEG-TS segments that join
 * byte for byte. Null when `value` is not of that shape.
 */
function concatParts(value: string): string[] | null {
  if (!value.startsWith("concat:")) return null;
  const parts = value.slice("concat:".length).split("|");
  return parts.every((p) => WHOLE.test(p)) ? parts : null;
}

const HLS_FLAGS = new Set<string>(ALLOWED_HLS_FLAGS);
const MANY_FILE_FORMATS = new Set<string>(DIRECTORY_FORMATS);

function checkPositional(
  binary: "ffmpeg" | "ffprobe",
  arg: string,
  index: number,
  names: DeclaredNames,
  lastFormat: string | null,
  refuse: (i: number, m: string) => void,
) {
  if (binary === "ffprobe") {
    if (!isPlaceholderFor(arg, names.inputs, names))
      refuse(index, `ffprobe's input must be an input placeholder like {{video}}`);
    // Its input is positional: a playlist demuxer would read whatever files the playlist names, as for -i.
    if (lastFormat !== null && MANY_FILE_FORMATS.has(lastFormat))
      refuse(index, `format "${lastFormat}" is for outputs only`);
    return;
  }
  if (arg === "-" && lastFormat === "null") return;
  if (
    lastFormat !== null &&
    MANY_FILE_FORMATS.has(lastFormat) &&
    !names.directories?.has(placeholderTarget(arg)?.name ?? "")
  ) {
    refuse(
      index,
      `${lastFormat === "hls" ? "HLS" : `The ${lastFormat} muxer`} writes many files: its output must be a directory output ("kind": "directory")`,
    );
    return;
  }
  if (!isPlaceholderFor(arg, names.outputs, names)) {
    refuse(
      index,
      `output positions must be an output placeholder like {{out}} or {{dir/file}} ("-" only after -f null)`,
    );
  }
}

export function checkFilterGraph(graph: string, names: DeclaredNames): string[] {
  const problems: string[] = [];
  for (const f of parseFilterGraph(graph)) {
    if (!ALLOWED.has(f.name)) {
      problems.push(`filter "${f.name}" is not allowed (GET /v1/policy lists the filters that are)`);
      continue;
    }
    const unbounded = sourceProblem(f);
    if (unbounded) problems.push(unbounded);
    const rule = ownValue(FILE_OPTIONS, f.name);
    const values: [string, string, "placeholderOnly" | "refused" | undefined][] = Object.entries(f.options).map(
      ([k, v]) => [
        k,
        v,
        rule?.placeholderOnly?.includes(k) ? "placeholderOnly" : rule?.refused?.includes(k) ? "refused" : undefined,
      ],
    );
    if (f.positional.length > 0) values.push(["(first argument)", f.positional[0], rule?.positional0]);
    // Positional values land on the filter's options in their declared order, which can reach a file
    // option (curves' second is psfile): a filter with file options takes the rest by name only.
    if (rule && f.positional.length > 1) problems.push(`give ${f.name}'s options by name (key=value) after the first`);
    if (rule && !rule.positional0 && f.positional.length > 0)
      problems.push(`give ${f.name}'s options by name (key=value)`);
    for (const [key, value, kind] of values) {
      if (kind === "refused")
        problems.push(`${f.name} option ${key} is not allowed: it reads or writes files outside the job`);
      else if (kind === "placeholderOnly") {
        const m = WHOLE.exec(value);
        if (!m || !names.inputs.has(m[1])) problems.push(`${f.name} ${key} must be an input placeholder like {{subs}}`);
      } else if (value.includes("{{")) {
        problems.push(`placeholders are only allowed in ${f.name}'s file options`);
      }
    }
  }
  return problems;
}

const ALLOWED = new Set<string>(ALLOWED_FILTERS);

/** A source filter must say how long it generates, within MAX_SOURCE_SECONDS. */
function sourceProblem(f: ParsedFilter): string | null {
  const keys = ownValue(SOURCE_DURATION_OPTIONS, f.name);
  if (!keys) return null;
  // Every spelling given must be bounded: ffmpeg applies the last of `d=1:duration=99999`.
  const given = keys.map((k) => f.options[k]).filter((v) => v !== undefined);
  const bounded = (v: string) => {
    const s = durationSeconds(v);
    return s !== null && s > 0 && s <= MAX_SOURCE_SECONDS;
  };
  if (given.length > 0 && given.every(bounded)) return null;
  return `source filter ${f.name} needs ${keys.map((k) => `${k}=`).join(" or ")} with a duration from 0 to ${MAX_SOURCE_SECONDS} s`;
}
