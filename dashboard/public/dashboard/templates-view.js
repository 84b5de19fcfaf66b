// Job templates in the dashboard: the account's list, a form to create or edit one (a new version),
// and a form to run one with a field per variable (docs/api.md, Job templates).

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const EXAMPLE = {
  variables: { src: { type: "url", description: "the video" }, height: { type: "integer", default: 480, minimum: 144, maximum: 2160 } },
  job: {
    inputs: { video: { type: "url", url: "{{src}}" } },
    outputs: { small: { fileName: "small-{{height}}.mp4" } },
    ffmpegArgs: ["-i", "{{video}}", "-vf", "scale=-2:{{height}}", "{{small}}"],
  },
};

/** The service's refusal with each detail's place: a template's problems are often several. */
function refusal(ui, err) {
  const details = err?.details ?? [];
  const said = err?.code ? `${err.code}: ${err.message}` : String(err?.message ?? err);
  return ui.h("div", { role: "alert", class: "error" }, ui.h("p", {}, said), details.length
    ? ui.h("ul", {}, details.map((d) => ui.h("li", {}, ui.h("code", {}, d.path.join(".") || "(body)"), `: ${d.message}`)))
    : null);
}

export async function templatesView(client, nav, ui) {
  const { h } = ui;
  const { data } = await client.listTemplates({ limit: 100 });
  const rows = data.map((t) => h("tr", {},
    h("td", {}, h("strong", {}, t.name)),
    h("td", {}, `v${t.version}`),
    h("td", {}, Object.entries(t.variables).map(([k, v]) => `${k} (${v.type}${v.default === undefined ? "" : ` = ${v.default}`})`).join(", ")),
    h("td", {}, t.description ?? ""),
    h("td", {}, h("a", { href: `#/templates/${encodeURIComponent(t.name)}/run` }, `Run ${t.name}`), " ",
      h("a", { href: `#/templates/${encodeURIComponent(t.name)}/edit` }, `Edit ${t.name}`))));
  nav.show("Templates", h("p", {}, h("a", { href: "#/templates/new" }, "New template")),
    data.length
      ? h("table", {}, h("thead", {}, h("tr", {}, ["Name", "Version", "Variables", "Description", ""].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, rows))
      : h("p", { class: "muted" }, "No templates yet."));
}

/** Creating a template (name given) or its next version (name fixed). */
export async function templateEditView(client, name, nav, ui) {
  const { h, field } = ui;
  const current = name ? await client.getTemplate(name) : null;
  const nameInput = h("input", { id: "template-name", name: "name", required: true, value: name ?? "", readonly: Boolean(name) });
  const description = h("input", { id: "template-description", name: "description", value: current?.description ?? "" });
  const variables = h("textarea", { id: "template-variables", name: "variables", rows: 6 }, JSON.stringify(current?.variables ?? EXAMPLE.variables, null, 2));
  const job = h("textarea", { id: "template-job", name: "job", rows: 10 }, JSON.stringify(current?.job ?? EXAMPLE.job, null, 2));
  const status = h("div", { "aria-live": "polite" });
  const form = h("form", { "aria-label": name ? `Edit template ${name}` : "New template", onsubmit: async (e) => {
    e.preventDefault();
    try {
      if (!NAME.test(nameInput.value)) throw new Error("A name is 1-64 letters, digits, . _ -, starting with a letter or digit");
      const body = { description: description.value || undefined, variables: JSON.parse(variables.value || "{}"), job: JSON.parse(job.value) };
      const saved = name ? await client.updateTemplate(name, body) : await client.createTemplate({ name: nameInput.value, ...body });
      status.replaceChildren(h("p", {}, `Saved ${saved.name} version ${saved.version}. `, h("a", { href: `#/templates/${encodeURIComponent(saved.name)}/run` }, `Run ${saved.name}`)));
    } catch (err) {
      status.replaceChildren(refusal(ui, err));
    }
  } },
  field("template-name", "Name", nameInput), field("template-description", "Description", description),
  field("template-variables", "Variables (JSON: name → { type, default, … })", variables),
  field("template-job", "Job (JSON: a POST /v1/jobs body, {{variable}} in its strings)", job),
  h("button", { type: "submit" }, name ? "Save a new version" : "Create template"), status);
  nav.show(name ? `Edit template ${name}${current ? ` (v${current.version})` : ""}` : "New template", form);
}

/** A field per variable, of its type; the job made from the values, then its page. */
export async function templateRunView(client, name, nav, ui) {
  const { h, field } = ui;
  const template = await client.getTemplate(name);
  const controls = Object.entries(template.variables).map(([key, v]) => {
    const id = `var-${key}`;
    const label = `${key}${v.description ? ` — ${v.description}` : ""}${v.default === undefined ? " (required)" : ""}`;
    let control;
    if (v.type === "boolean") control = h("input", { type: "checkbox", id, name: key, checked: v.default === true });
    else if (v.enum) control = h("select", { id, name: key }, v.enum.map((o) => h("option", { value: o, selected: o === v.default }, o)));
    else {
      const type = v.type === "url" ? "url" : v.type === "string" ? "text" : "number";
      control = h("input", { type, id, name: key, value: v.default ?? "", required: v.default === undefined, min: v.minimum, max: v.maximum, step: v.type === "number" ? "any" : undefined });
    }
    return { key, v, control, el: field(id, label, control) };
  });
  const status = h("div", { "aria-live": "polite" });
  const form = h("form", { "aria-label": `Run template ${name}`, onsubmit: async (e) => {
    e.preventDefault();
    const vars = {};
    for (const { key, v, control } of controls) {
      if (v.type === "boolean") vars[key] = control.checked;
      else if (control.value !== "") vars[key] = v.type === "number" || v.type === "integer" ? Number(control.value) : control.value;
    }
    try {
      const job = await client.createJob({ template: name, vars });
      location.hash = `#/jobs/${job.id}`;
    } catch (err) {
      status.replaceChildren(refusal(ui, err));
    }
  } }, controls.map((c) => c.el), h("button", { type: "submit" }, `Run ${name}`), status);
  nav.show(`Run template ${name} (v${template.version})`, template.description ? h("p", {}, template.description) : null, form);
}
