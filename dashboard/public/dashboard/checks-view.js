// What a job's output checks proved (its `checks`, by output) as one table, and its signed receipt:
// the SHA-256 of each published file, the signature, and a button that copies the receipt whole for
// whoever receives the files (docs/api.md, "Output checks" and "Receipts").
const cell = (tag, text, className) => {
  const el = document.createElement(tag);
  el.textContent = text;
  if (className) el.className = className;
  return el;
};

export function checksTable(checks) {
  const rows = Object.entries(checks).flatMap(([output, results]) => results.map((r) => ({ output, ...r })));
  if (rows.length === 0) return null;
  const table = document.createElement("table");
  table.className = "checks";
  const caption = cell("caption", `${rows.filter((r) => !r.passed).length} of ${rows.length} checks failed`);
  const head = document.createElement("tr");
  for (const title of ["Output", "Check", "Result", "Measured, against wanted"]) head.append(cell("th", title));
  table.append(caption, head);
  for (const r of rows) {
    const tr = document.createElement("tr");
    tr.className = r.passed ? "passed" : "failed";
    tr.append(cell("td", r.output), cell("td", r.check), cell("td", r.passed ? "passed" : "failed"), cell("td", r.message));
    table.append(tr);
  }
  return table;
}

export function receiptView(receipt) {
  const payload = JSON.parse(receipt.payload);
  const box = document.createElement("div");
  box.className = "receipt";
  const files = [...payload.outputs, ...payload.deliveredOutputs];
  const list = document.createElement("ul");
  for (const f of files) list.append(cell("li", `${f.label}: sha256 ${f.sha256 ?? "(a directory)"}, ${f.size} bytes`));
  const signature = cell("p", `Signed ${receipt.headers["webhook-id"]} at ${receipt.headers["webhook-timestamp"]}: ${receipt.headers["webhook-signature"]}`);
  signature.className = "signature";
  const copy = cell("button", "Copy receipt", "secondary");
  copy.type = "button";
  copy.addEventListener("click", async () => {
    await navigator.clipboard.writeText(JSON.stringify(receipt));
    copy.textContent = "Receipt copied";
  });
  box.append(files.length ? list : cell("p", "Nothing published."), signature, copy);
  return box;
}
