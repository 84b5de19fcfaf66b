// The operator's Metrics page (#/metrics): GET /v1/admin/metrics drawn as charts — jobs per hour by
// outcome, queue wait and run time, credits per day — with the period's totals and the accounts.
import { legend, lines, stackedBars } from "./charts.js";

const PERIOD_DAYS = { "24h": 1, "7d": 7, "30d": 30 };
const OUTCOMES = ["completed", "failed", "canceled", "rejected"];
const TIMES = ["wait p50", "wait p90", "run p50", "run p90"];

export async function metricsView(client, params, nav, h) {
  const period = params.get("period") in PERIOD_DAYS ? params.get("period") : "24h";
  const m = await client.getMetrics({ since: new Date(Date.now() - PERIOD_DAYS[period] * 86_400_000).toISOString() });
  const per = m.granularity;
  // Hours say their day too when the period spans days.
  const label = (at) => (per === "day" ? at.slice(5, 10) : PERIOD_DAYS[period] > 1 ? `${at.slice(5, 10)} ${at.slice(11, 13)}:00` : `${at.slice(11, 13)}:00`);
  const jobs = m.series.map((s) => ({ label: label(s.at), values: s.jobs }));
  const times = m.series.map((s) => ({ label: label(s.at), values: { "wait p50": s.queueWaitP50Ms, "wait p90": s.queueWaitP90Ms, "run p50": s.runP50Ms, "run p90": s.runP90Ms } }));
  const creditsByDay = new Map();
  for (const s of m.series) creditsByDay.set(s.at.slice(0, 10), (creditsByDay.get(s.at.slice(0, 10)) ?? 0) + s.credits);
  const credits = [...creditsByDay].map(([day, n]) => ({ label: day.slice(5), values: { credits: Math.round(n * 100) / 100 } }));

  const periods = h("p", { class: "periods" }, "Period:", Object.keys(PERIOD_DAYS).flatMap((p) =>
    [" ", p === period ? h("strong", { "aria-current": "page" }, p) : h("a", { href: `#/metrics?period=${p}` }, p)]));
  const figure = (id, title, chart, key) => h("figure", { id }, h("figcaption", {}, title), chart, key);
  const dist = (d) => (d.count ? `p50 ${d.p50Ms} ms · p90 ${d.p90Ms} ms · p99 ${d.p99Ms} ms (${d.count})` : "none");
  const rows = [
    ["Jobs", OUTCOMES.map((o) => `${o} ${m.jobs[o] ?? 0}`).join(" · ")],
    ["Errors", Object.entries(m.errors).map(([c, n]) => `${c} ${n}`).join(" · ") || "none"],
    ["Queue wait", dist(m.queueWaitMs)],
    ["Run time", dist(m.runMs)],
    ["Container starts", `cold ${m.containerStarts.cold} · warm ${m.containerStarts.warm}`],
    ["Bytes", `in ${bytes(m.bytesIn)} · out ${bytes(m.bytesOut)}`],
    ["Credits", String(m.credits)],
    ["Webhook attempts", `delivered ${m.webhookAttempts.delivered} · retrying ${m.webhookAttempts.retrying} · failed ${m.webhookAttempts.failed}`],
  ];
  const totals = h("table", { id: "metrics-totals" }, h("caption", { class: "muted" }, `${new Date(m.since).toLocaleString()} – ${new Date(m.until).toLocaleString()}`),
    h("tbody", {}, rows.map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, v)))));
  const accounts = h("table", { id: "metrics-accounts" }, h("caption", { class: "muted" }, "By account"),
    h("thead", {}, h("tr", {}, ["Account", "Jobs", "Failed", "Credits", "Bytes in", "Bytes out"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, m.accounts.map((a) => h("tr", {}, h("td", {}, a.account), h("td", {}, a.jobs), h("td", {}, a.failed), h("td", {}, a.credits), h("td", {}, bytes(a.bytesIn)), h("td", {}, bytes(a.bytesOut))))));
  nav.show("Metrics", periods,
    figure("chart-jobs", `Jobs per ${per} by outcome`, stackedBars(`Jobs per ${per} by outcome`, jobs, OUTCOMES), legend(OUTCOMES)),
    figure("chart-times", `Queue wait and run time per ${per}, ms`, lines(`Queue wait and run time per ${per}`, times, TIMES, " ms"), legend(TIMES)),
    figure("chart-credits", "Credits per day", stackedBars("Credits per day", credits, ["credits"]), null),
    totals, accounts);
}

function bytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) (v /= 1024), u++;
  return `${v.toFixed(1)} ${units[u]}`;
}
