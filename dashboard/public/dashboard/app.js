// The ffjobs dashboard: a page of the Worker's static assets, talking to the API with the typed client
// (client/, built into ./client/ by `npm run dev`, `npm test` and `npm run deploy`). The API key is kept
// in sessionStorage: for this tab only. Views are chosen by the URL's hash (#/jobs, #/jobs/<id>, …).
import { createClient, FfjobsError, isFinished, MULTIPART_THRESHOLD_BYTES } from "./client/index.js";
import { commandLine } from "./command-line.js";
import { hlsPreview } from "./hls-preview.js";
import { metricsView } from "./metrics-view.js";
import { timingsBar } from "./timings-bar.js";
import { checksTable, receiptView } from "./checks-view.js";
import { templateEditView, templateRunView, templatesView } from "./templates-view.js";
import { inputsView, probeView, resultView } from "./job-facts-view.js";

const main = document.getElementById("main");
const KEY = "ffjobs.apiKey";
let client = null;

const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
  return el;
};
const show = (title, ...content) => {
  document.title = `${title} · ffjobs`;
  main.replaceChildren(h("h2", {}, title), ...content.filter((c) => c !== null && c !== undefined));
  main.focus();
};
/** A labelled control: the label names only the control (not its options). */
const field = (id, text, control) => h("div", { class: "field" }, h("label", { for: id }, text), control);
const problem = (err) => h("p", { class: "error", role: "alert" }, err instanceof FfjobsError ? `${err.code}: ${err.message}` : String(err?.message ?? err));
// Focusable, so a keyboard can scroll a long one.
const pre = (v) => h("pre", { tabindex: 0 }, typeof v === "string" ? v : JSON.stringify(v, null, 2));

function signIn(message) {
  document.getElementById("nav").hidden = true;
  const input = h("input", { type: "password", id: "api-key", autocomplete: "off", required: true });
  const form = h("form", { "aria-label": "Sign in", onsubmit: async (e) => {
    e.preventDefault();
    const candidate = createClient({ baseUrl: location.origin, apiKey: input.value.trim() });
    try {
      await candidate.getAccount();
      sessionStorage.setItem(KEY, input.value.trim());
      start();
    } catch (err) {
      form.append(problem(err));
    }
  } }, field("api-key", "API key", input), h("button", { type: "submit" }, "Sign in"));
  show("Sign in", message ? h("p", {}, message) : null, h("p", { class: "muted" }, "The key stays in this tab only."), form);
}

async function credits() {
  const a = await client.getAccount();
  document.getElementById("credits").textContent = `Credits used: ${a.creditsUsed}${a.creditBalance === null ? "" : ` · balance ${a.creditBalance}`}`;
}

async function jobsView(params, nav) {
  const status = params.get("status") ?? "";
  const meta = params.get("meta") ?? "";
  const [mk, mv] = meta.split("=");
  const page = await client.listJobs({ limit: 20, cursor: params.get("cursor") ?? undefined, status: status || undefined, metadata: mk && mv ? { [mk]: mv } : undefined });
  const statusSelect = h("select", { id: "status-filter", name: "status" }, ["", "queued", "running", "completed", "failed", "canceled", "rejected"].map((s) => h("option", { value: s, selected: s === status }, s || "any")));
  const metaInput = h("input", { id: "meta-filter", name: "meta", placeholder: "key=value", value: meta });
  const filters = h("form", { class: "filters", "aria-label": "Filter jobs", onsubmit: (e) => {
    e.preventDefault();
    location.hash = `#/jobs?${new URLSearchParams({ status: statusSelect.value, meta: metaInput.value })}`;
  } }, field("status-filter", "Status", statusSelect), field("meta-filter", "Metadata", metaInput), h("button", { type: "submit" }, "Filter"));
  const rows = page.data.map((j) => {
    // A list item is a summary: its command line comes cut to 200 characters (the job's page has it whole).
    const command = j.command;
    const running = j.status === "running" ? h("progress", { max: 100, value: j.progress?.percent ?? 0, "aria-label": `Progress of job ${j.id.slice(0, 8)}` }) : null;
    return h("tr", {},
      h("td", {}, h("a", { href: `#/jobs/${j.id}` }, j.id.slice(0, 8))),
      h("td", { class: `status-${j.status}` }, j.status, running),
      h("td", { class: "command", title: command }, h("code", {}, command.length > 90 ? `${command.slice(0, 89)}…` : command)),
      h("td", {}, isFinished(j) ? `${j.runtimeSeconds} s` : ""),
      h("td", {}, isFinished(j) ? String(j.creditsCharged) : ""),
      h("td", {}, new Date(j.createdAt).toLocaleString()),
      h("td", {}, Object.entries(j.metadata).map(([k, v]) => `${k}=${v}`).join(", ")));
  });
  const next = page.nextCursor ? h("a", { href: `#/jobs?${new URLSearchParams({ status, meta, cursor: page.nextCursor })}` }, "Next page") : null;
  nav.show("Jobs", filters, h("table", {}, h("caption", { class: "muted" }, page.data.length === 1 ? "1 job" : `${page.data.length} jobs`),
    h("thead", {}, h("tr", {}, ["Job", "Status", "Command", "Run time", "Credits", "Created", "Metadata"].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, rows)), next);
}

function outputPreview(o) {
  const type = o.contentType.split("/")[0];
  if (o.kind === "directory" && o.contentType === "application/vnd.apple.mpegurl") return hlsPreview(o.downloadUrl, `Output ${o.label}`);
  if (type === "video" && o.kind === "file") return h("video", { src: o.downloadUrl, controls: true, preload: "metadata", "aria-label": `Output ${o.label}` });
  if (type === "audio") return h("audio", { src: o.downloadUrl, controls: true, "aria-label": `Output ${o.label}` });
  if (type === "image") return h("img", { src: o.downloadUrl, alt: `Output ${o.label}` });
  return null;
}

async function jobView(id, nav) {
  let job = await client.getJob(id);
  const bar = h("progress", { max: 100, value: job.progress?.percent ?? 0, id: "progress", "aria-label": "Progress" });
  const state = h("p", { "aria-live": "polite", id: "job-status" });
  const details = h("div");
  const render = async () => {
    state.textContent = `${job.status}${job.progress?.percent != null ? ` · ${job.progress.percent}%` : ""}${job.errorMessage ? ` · ${job.errorCode}: ${job.errorMessage}` : ""}`;
    if (isFinished(job)) bar.value = job.status === "completed" ? 100 : bar.value;
    else if (job.progress?.percent != null) bar.value = job.progress.percent;
    const command = job.preset ? [h("h3", {}, "Preset"), pre({ preset: job.preset, params: job.params })] : [];
    if (job.template) command.unshift(h("p", { id: "job-template" }, "Made from template ", h("a", { href: `#/templates/${encodeURIComponent(job.template.name)}/run` }, job.template.name), ` version ${job.template.version}`));
    const line = commandLine(job);
    const copy = h("button", { type: "button", class: "secondary", onclick: async () => {
      await navigator.clipboard.writeText(line);
      copy.textContent = "Copied";
    } }, "Copy");
    const timings = job.timings ? [h("h3", {}, "Where the time went"), timingsBar(job.timings)] : [];
    const parts = [...command, h("h3", {}, "Command"), h("p", { class: "command-line" }, h("code", { id: "command-line" }, line), " ", copy), ...timings, h("h3", {}, "Inputs"), inputsView(h, job.inputs)];
    if (!isFinished(job)) parts.unshift(h("button", { type: "button", class: "secondary", onclick: async () => { job = await client.cancelJob(id); render(); } }, "Cancel job"));
    if (job.outputs.length) {
      parts.push(h("h3", {}, "Outputs"), h("ul", {}, job.outputs.map((o) => h("li", {}, h("a", { href: o.downloadUrl, class: "download" }, `${o.label} (${o.contentType})`), outputPreview(o)))));
    }
    if (isFinished(job)) {
      const r = await client.getResult(id);
      parts.push(h("h3", {}, "Result"), resultView(h, r));
      if (r.stdout) parts.push(h("h4", {}, "stdout"), pre(r.stdout));
      if (r.stderrTail) parts.push(h("h4", {}, "stderr (tail)"), pre(r.stderrTail));
      if (r.probe) parts.push(h("h4", {}, "Probe"), probeView(h, r.probe));
      const checks = checksTable(r.checks);
      if (checks) parts.push(h("h3", {}, "Checks"), checks);
      parts.push(h("h3", {}, "Receipt"), receiptView(r.receipt));
    }
    details.replaceChildren(...parts);
  };
  nav.show(`Job ${id.slice(0, 8)}`, bar, state, details);
  await render();
  if (!isFinished(job)) {
    for await (const e of client.events(id)) {
      if (!nav.current()) break; // the user went elsewhere: stop following this job
      job = e.job;
      if (e.event === "progress") {
        bar.value = job.progress?.percent ?? bar.value;
        state.textContent = `${job.status} · ${job.progress?.percent ?? "?"}%`;
      } else await render();
    }
    await credits();
  }
}

async function presetsView(nav) {
  const { data } = await client.listPresets();
  nav.show("Presets", h("ul", {}, data.map((p) => h("li", {}, h("strong", {}, p.name), ` — ${p.description}`))));
}

async function deliveriesView(nav) {
  const { data } = await client.listDeliveries({ limit: 20 });
  const rows = data.map((d) => h("tr", {},
    h("td", {}, d.eventType), h("td", {}, d.jobId ? h("a", { href: `#/jobs/${d.jobId}` }, d.jobId.slice(0, 8)) : "—"),
    h("td", { class: d.status === "failed" ? "status-failed" : d.status === "succeeded" ? "status-completed" : "" }, d.status),
    h("td", {}, d.attempts.map((a) => a.httpStatus ?? a.error ?? a.errorKind).join(", ")),
    h("td", {}, h("button", { type: "button", class: "secondary", "aria-label": `Redeliver ${d.eventType} ${d.id.slice(0, 8)}`, onclick: async (e) => {
      await client.redeliver(d.id);
      e.target.textContent = "Redelivery queued";
      e.target.setAttribute("aria-label", `Redelivery of ${d.eventType} ${d.id.slice(0, 8)} queued`);
    } }, "Redeliver"))));
  nav.show("Webhook deliveries", h("table", {}, h("thead", {}, h("tr", {}, ["Event", "Job", "Status", "Attempts", ""].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, rows)));
}

async function newJobView(nav) {
  const { data: presets } = await client.listPresets();
  const kind = h("select", { id: "kind", name: "kind" }, h("option", { value: "preset" }, "A preset"), h("option", { value: "raw" }, "A raw ffmpeg command"));
  const preset = h("select", { id: "preset", name: "preset" }, presets.map((p) => h("option", { value: p.name }, p.name)));
  const params = h("textarea", { id: "params", name: "params", rows: 3 }, "{}");
  const args = h("textarea", { id: "args", name: "args", rows: 3 }, "-i {{input}} -vf scale=640:-2 {{out}}");
  const outName = h("input", { id: "out-name", name: "out-name", value: "out.mp4" });
  const file = h("input", { type: "file", id: "file", name: "file", required: true });
  const webhook = h("input", { id: "webhook", name: "webhook", type: "url", placeholder: "https://…" });
  const upload = h("progress", { max: 100, value: 0, id: "upload-progress", "aria-label": "Upload progress" });
  const status = h("p", { "aria-live": "polite" });
  const presetFields = h("div", { class: "stack" }, field("preset", "Preset", preset), field("params", "Parameters (JSON)", params));
  const rawFields = h("div", { class: "stack", hidden: true },
    field("args", "Arguments ({{input}} is the uploaded file, {{out}} the output; split at spaces)", args), field("out-name", "Output file name", outName));
  kind.addEventListener("change", () => {
    presetFields.hidden = kind.value !== "preset";
    rawFields.hidden = kind.value !== "raw";
  });
  const form = h("form", { "aria-label": "New job", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const f = file.files[0];
      const fileName = f.name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^[._-]+/, "") || "input";
      let assetId;
      if (f.size > MULTIPART_THRESHOLD_BYTES) {
        // A large file goes up in parts (resumable part by part; the only way above 5 GiB), as the typed client does it.
        assetId = (await client.uploadFile(f, { fileName, onProgress: (sent, total) => (upload.value = Math.round((sent / total) * 100)) })).id;
      } else {
        const slot = await client.createFile({ fileName });
        await putWithProgress(slot.upload, f, (p) => (upload.value = p));
        assetId = slot.id;
      }
      const asset = { type: "asset", assetId };
      const hook = webhook.value ? { webhookUrl: webhook.value } : {};
      let body;
      if (kind.value === "raw") {
        body = { inputs: { input: asset }, outputs: { out: { fileName: outName.value } }, ffmpegArgs: args.value.trim().split(/\s+/), ...hook };
      } else {
        const chosen = presets.find((p) => p.name === preset.value);
        const inputs = Array.isArray(chosen.inputs) ? { inputs: { [chosen.inputs[0]]: asset } } : { input: [asset, asset] };
        body = { mode: "preset", preset: preset.value, ...inputs, params: JSON.parse(params.value || "{}"), ...hook };
      }
      const job = await client.createJob(body);
      location.hash = `#/jobs/${job.id}`;
    } catch (err) {
      status.replaceChildren(problem(err));
    }
  } },
  field("kind", "Kind of job", kind), presetFields, rawFields, field("file", "Input file", file),
  field("webhook", "Webhook URL (optional)", webhook), upload, h("button", { type: "submit" }, "Upload and run"), status);
  nav.show("New job", form);
}

/** The upload's PUT with progress (fetch cannot report upload progress in browsers). */
function putWithProgress(upload, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", upload.url);
    for (const [k, v] of Object.entries(upload.headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onload = () => (xhr.status < 300 ? (onProgress(100), resolve()) : reject(new Error(`upload failed: HTTP ${xhr.status}`)));
    xhr.onerror = () => reject(new Error("upload failed"));
    xhr.send(file);
  });
}

/**
 * Each navigation numbers itself: a view that finishes loading after the user went elsewhere (a slow
 * list, say, then a click on "New job") must not replace the newer view.
 */
let navigation = 0;

async function route() {
  if (!client) return;
  const mine = ++navigation;
  const current = () => mine === navigation;
  const nav = { current, show: (...args) => current() && show(...args) };
  const [path, query] = location.hash.slice(1).split("?");
  const params = new URLSearchParams(query ?? "");
  const job = /^\/jobs\/([0-9a-f-]{36})$/.exec(path ?? "");
  const template = /^\/templates\/([^/]+)\/(run|edit)$/.exec(path ?? "");
  const ui = { h, field, problem, pre };
  try {
    if (job) await jobView(job[1], nav);
    else if (path === "/new") await newJobView(nav);
    else if (path === "/presets") await presetsView(nav);
    else if (path === "/templates") await templatesView(client, nav, ui);
    else if (path === "/templates/new") await templateEditView(client, null, nav, ui);
    else if (template) await (template[2] === "run" ? templateRunView : templateEditView)(client, decodeURIComponent(template[1]), nav, ui);
    else if (path === "/deliveries") await deliveriesView(nav);
    else if (path === "/metrics") await metricsView(client, params, nav, h);
    else await jobsView(params, nav);
  } catch (err) {
    if (err instanceof FfjobsError && err.status === 401) return signIn("Your key was not accepted; sign in again.");
    if (current()) main.replaceChildren(problem(err));
  }
}

function start() {
  const key = sessionStorage.getItem(KEY);
  if (!key) return signIn();
  client = createClient({ baseUrl: location.origin, apiKey: key });
  document.getElementById("nav").hidden = false;
  credits().catch(() => {});
  route();
}

document.getElementById("sign-out").addEventListener("click", () => {
  sessionStorage.removeItem(KEY);
  client = null;
  signIn();
});
addEventListener("hashchange", route);
start();
