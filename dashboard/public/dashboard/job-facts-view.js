// A job's inputs, result and probe on its page as labelled fields and a table of streams, rather than
// JSON (the JSON stays a click away, in a <details>).

/** A description list of [label, value] pairs; values null or undefined are left out. */
function facts(h, pairs, label) {
  const shown = pairs.filter(([, v]) => v !== null && v !== undefined && v !== "");
  return h("dl", { class: "facts", "aria-label": label }, shown.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

const rawJson = (h, summary, value) =>
  h("details", {}, h("summary", {}, summary), h("pre", { tabindex: 0 }, JSON.stringify(value, null, 2)));

/** Each input by name: a URL (a link), an uploaded file (its id), another job's output (a link to it). */
export function inputsView(h, inputs) {
  const rows = Object.entries(inputs ?? {}).map(([name, input]) => {
    let what;
    if (input.type === "url") what = ["URL ", h("a", { href: input.url, rel: "noreferrer" }, input.url)];
    else if (input.type === "asset") what = ["uploaded file ", h("code", {}, input.assetId)];
    else if (input.type === "job") what = ["output ", h("code", {}, input.output), " of job ", h("a", { href: `#/jobs/${input.jobId}` }, input.jobId.slice(0, 8))];
    else what = [JSON.stringify(input)];
    return [name, h("span", {}, what)];
  });
  return h("div", {}, facts(h, rows, "Inputs"), rawJson(h, "Inputs as JSON", inputs));
}

/** The result's figures. */
export function resultView(h, r) {
  return facts(h, [
    ["Exit code", r.exitCode === null || r.exitCode === undefined ? null : String(r.exitCode)],
    ["Run time", r.runtimeSeconds === null || r.runtimeSeconds === undefined ? null : `${r.runtimeSeconds} s`],
    ["Credits", r.creditsCharged === null || r.creditsCharged === undefined ? null : String(r.creditsCharged)],
    ["Error", r.errorCode ? `${r.errorCode}: ${r.errorMessage ?? ""}` : null],
  ], "Result");
}

const num = (v) => (v === undefined || v === null || v === "" ? null : Number(v));
const rate = (r) => {
  const [n, d] = String(r ?? "").split("/").map(Number);
  return n > 0 && d > 0 ? `${Math.round((n / d) * 1000) / 1000}` : null;
};
const kbps = (v) => (num(v) ? `${Math.round(num(v) / 1000)} kb/s` : null);
const seconds = (v) => (num(v) !== null && Number.isFinite(num(v)) ? `${num(v).toFixed(2)} s` : null);

/** ffprobe's JSON: the container's facts, then a row per stream. */
export function probeView(h, probe) {
  const f = probe?.format ?? {};
  const streams = Array.isArray(probe?.streams) ? probe.streams : [];
  const columns = ["#", "Type", "Codec", "Profile", "Size", "Pixels", "Frame rate", "Sample rate", "Channels", "Bit rate", "Duration", "Language"];
  const rows = streams.map((s) => h("tr", {}, [
    s.index, s.codec_type, s.codec_name, s.profile,
    s.width && s.height ? `${s.width}×${s.height}` : null, s.pix_fmt, rate(s.avg_frame_rate ?? s.r_frame_rate),
    s.sample_rate ? `${s.sample_rate} Hz` : null, s.channel_layout ?? s.channels, kbps(s.bit_rate), seconds(s.duration), s.tags?.language,
  ].map((v) => h("td", {}, v === null || v === undefined ? "" : String(v)))));
  return h("div", {},
    facts(h, [
      ["Format", f.format_long_name ?? f.format_name],
      ["Duration", seconds(f.duration)],
      ["Size", num(f.size) ? `${num(f.size).toLocaleString()} bytes` : null],
      ["Bit rate", kbps(f.bit_rate)],
    ], "Probe"),
    streams.length ? h("table", { class: "streams" }, h("caption", {}, "Streams"), h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, rows)) : null,
    rawJson(h, "Probe as JSON", probe));
}
