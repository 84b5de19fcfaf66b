import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";

/**
 * `GET /docs`: the OpenAPI document for people. Self-contained (no CDN, no build step): a small
 * script reads /openapi.json and lists every operation with its parameters, request and responses,
 * resolving the named schemas. The machine-readable document stays at /openapi.json.
 */
export const docsPage = new Hono<AppEnv>();

docsPage.get("/", (c) => c.html(PAGE));

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>ffjobs API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem 1.5rem;color:#1d1d1f}
h1{margin-bottom:0}code,pre{font:13px ui-monospace,monospace}pre{background:#f5f5f7;padding:.6rem;overflow:auto;border-radius:6px}
.op{border-top:1px solid #ddd;padding:.6rem 0}.m{display:inline-block;min-width:4.5em;font-weight:700;text-transform:uppercase}
.get{color:#0a6}.post{color:#06c}.delete{color:#c30}details{margin:.3rem 0}summary{cursor:pointer}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
</style></head>
<body><h1>ffjobs API</h1><p id="about">Loading <a href="/openapi.json">/openapi.json</a>…</p><div id="ops"></div>
<h2 id="license">License</h2><p>Proprietary: the service is run by its operator on their own terms.</p>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
const refName = (r) => r.split("/").pop();
fetch("/openapi.json").then((r) => r.json()).then((doc) => {
  const schemas = doc.components.schemas;
  const schemaBlock = (s) => {
    if (!s) return "";
    const names = s.$ref ? [refName(s.$ref)] : (s.oneOf || []).map((x) => refName(x.$ref));
    return names.map((n) => "<details><summary><code>" + esc(n) + "</code></summary><pre>" + esc(JSON.stringify(schemas[n], null, 2)) + "</pre></details>").join("");
  };
  document.getElementById("about").innerHTML = esc(doc.info.description) + " Version " + esc(doc.info.version) + ". Authenticate with <code>Authorization: Bearer &lt;key&gt;</code>.";
  const out = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, o] of Object.entries(item)) {
      const params = (o.parameters || []).map((p) => "<tr><td><code>" + esc(p.name) + "</code></td><td>" + esc(p.in) + (p.required ? ", required" : "") + "</td><td>" + esc(p.description || "") + "</td></tr>").join("");
      const body = o.requestBody ? "<h4>Request</h4>" + schemaBlock(o.requestBody.content["application/json"].schema) : "";
      const responses = Object.entries(o.responses).map(([status, r]) => {
        const s = r.content && r.content["application/json"] ? schemaBlock(r.content["application/json"].schema) : "";
        return "<tr><td>" + esc(status) + "</td><td>" + esc(r.description) + s + "</td></tr>";
      }).join("");
      out.push('<div class="op" id="' + esc(o.operationId) + '"><span class="m ' + esc(method) + '">' + esc(method) + "</span> <code>" + esc(path) + "</code> <small>" + esc(o.operationId) + "</small><p>" + esc(o.summary) + "</p>"
        + (params ? "<h4>Parameters</h4><table>" + params + "</table>" : "") + body + "<h4>Responses</h4><table>" + responses + "</table></div>");
    }
  }
  document.getElementById("ops").innerHTML = out.join("");
});
</script></body></html>`;
