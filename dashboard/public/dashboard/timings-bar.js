// Where a finished job's time went (its `timings`), as one bar: a segment per phase, as wide as its
// share, each labelled with its name and milliseconds (also for screen readers, as a list).
const PHASES = [["queuedMs", "queued"], ["fetchMs", "fetch"], ["runMs", "run"], ["storeMs", "store"], ["finishMs", "finish"]];

export function timingsBar(timings) {
  const total = PHASES.reduce((n, [k]) => n + (timings[k] ?? 0), 0) || 1;
  const bar = document.createElement("ul");
  bar.className = "timings";
  bar.setAttribute("aria-label", `Phases, ${total} ms in all`);
  for (const [key, name] of PHASES) {
    const ms = timings[key] ?? 0;
    const segment = document.createElement("li");
    segment.className = `phase-${name}`;
    segment.style.flexGrow = String(Math.max(ms / total, 0.001));
    segment.textContent = `${name} ${ms} ms`;
    segment.title = `${name}: ${ms} ms`;
    bar.append(segment);
  }
  return bar;
}
