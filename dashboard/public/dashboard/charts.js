// Small SVG charts for the Metrics page, drawn from the API's numbers with no library: bars (stacked
// by series) and lines. Each is an <svg role="img"> whose label says what it shows and its largest value;
// every bar and point has a <title> with its exact figure (a tooltip, and read by screen readers).
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640;
const HEIGHT = 180;
const PAD = { left: 48, right: 8, top: 8, bottom: 22 };

const el = (tag, attrs = {}, text) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
};

/** The frame: a y axis from 0 to `max` (three ticks, in `unit`) and x labels every few points. */
function frame(label, max, labels, unit) {
  const svg = el("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": label, class: "chart" });
  svg.append(el("title", {}, label));
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  for (const f of [0, 0.5, 1]) {
    const y = PAD.top + plotH * (1 - f);
    svg.append(el("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y, class: "grid" }));
    svg.append(el("text", { x: PAD.left - 4, y: y + 4, "text-anchor": "end", class: "tick" }, tickLabel(max * f, unit)));
  }
  const every = Math.max(1, Math.ceil(labels.length / 8));
  labels.forEach((text, i) => {
    if (i % every) return;
    svg.append(el("text", { x: xOf(i, labels.length) + step(labels.length) / 2, y: HEIGHT - 6, "text-anchor": "middle", class: "tick" }, text));
  });
  return svg;
}

const step = (n) => (WIDTH - PAD.left - PAD.right) / Math.max(n, 1);
const xOf = (i, n) => PAD.left + i * step(n);
const yOf = (v, max) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - v / max);
/** A series' name as a class name ("wait p50" → "wait-p50"). */
const slug = (s) => s.replaceAll(" ", "-");
const round = (v) => (v >= 100 ? Math.round(v) : Math.round(v * 10) / 10);

/**
 * An axis tick's text, short enough for the axis's margin (PAD.left at 10px type: about 8 characters):
 * thousands as k and millions as M, so "10000 ms" (cut to "0000 ms" at the frame's edge) reads "10k ms".
 */
export function tickLabel(value, unit) {
  const v = round(value);
  const short = v >= 1e6 ? `${round(v / 1e6)}M` : v >= 1e4 ? `${round(v / 1e3)}k` : String(v);
  return `${short}${unit}`;
}
const niceMax = (v) => (v <= 0 ? 1 : 10 ** Math.floor(Math.log10(v)) * [1, 2, 5, 10].find((m) => m * 10 ** Math.floor(Math.log10(v)) >= v));

/** Bars per point, stacked by series: `points` are { label, values: { [series]: number } }. */
export function stackedBars(label, points, series, unit = "") {
  const totals = points.map((p) => series.reduce((n, s) => n + (p.values[s] ?? 0), 0));
  const max = niceMax(Math.max(...totals, 0));
  const svg = frame(`${label}; the largest is ${Math.max(...totals, 0)}${unit}`, max, points.map((p) => p.label), unit);
  const w = Math.max(step(points.length) - 2, 1);
  points.forEach((p, i) => {
    let base = 0;
    for (const s of series) {
      const v = p.values[s] ?? 0;
      if (!v) continue;
      const rect = el("rect", { x: xOf(i, points.length) + 1, y: yOf(base + v, max), width: w, height: yOf(base, max) - yOf(base + v, max), class: `series-${slug(s)}` });
      rect.append(el("title", {}, `${p.label}: ${v}${unit} ${s}`));
      svg.append(rect);
      base += v;
    }
  });
  return svg;
}

/** Lines over the points, one per series; a null value leaves a gap. */
export function lines(label, points, series, unit = "") {
  const all = points.flatMap((p) => series.map((s) => p.values[s])).filter((v) => v != null);
  const max = niceMax(Math.max(...all, 0));
  const svg = frame(`${label}; the largest is ${Math.max(...all, 0)}${unit}`, max, points.map((p) => p.label), unit);
  for (const s of series) {
    let path = "";
    points.forEach((p, i) => {
      const v = p.values[s];
      if (v == null) return;
      const x = xOf(i, points.length) + step(points.length) / 2;
      path += `${path && points[i - 1]?.values[s] != null ? "L" : "M"}${x.toFixed(1)},${yOf(v, max).toFixed(1)}`;
      const dot = el("circle", { cx: x, cy: yOf(v, max), r: 3, class: `series-${slug(s)}` });
      dot.append(el("title", {}, `${p.label}: ${s} ${v}${unit}`));
      svg.append(dot);
    });
    // Under the dots, after the title (which names the chart first).
    svg.insertBefore(el("path", { d: path, class: `line series-${slug(s)}` }), svg.children[1]);
  }
  return svg;
}

/** The colour key of a chart. */
export function legend(series) {
  const list = document.createElement("ul");
  list.className = "legend";
  for (const s of series) {
    const item = document.createElement("li");
    item.className = `key-${slug(s)}`;
    item.textContent = s;
    list.append(item);
  }
  return list;
}
