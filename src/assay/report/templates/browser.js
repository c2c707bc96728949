// The report page: draws the Vega-Lite charts and runs the cell browser. Every value that came
// from a model or a candidate is put in the page with textContent, never as HTML.
(function () {
  "use strict";
  const specs = JSON.parse(document.getElementById("chart-specs").textContent);
  const data = JSON.parse(document.getElementById("cell-data").textContent);
  const cells = data.cells;
  const COLUMNS = ["run", "subject", "arm", "repeat", "step", "status", "verdict", "verdict_reason", "correctness", "cost_usd"];
  const state = { sortKey: null, sortDir: 1 };

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) if (child) node.appendChild(child);
    return node;
  }
  const text = (value) => (value === null || value === undefined ? "—"
    : typeof value === "number" && !Number.isInteger(value) ? String(+value.toPrecision(4)) : String(value));
  const shorten = (value, n) => { const t = text(value); return t.length > n ? t.slice(0, n - 1) + "…" : t; };

  function drawCharts() {
    for (const node of document.querySelectorAll(".chart[data-chart]")) {
      const spec = specs[node.dataset.chart];
      vegaEmbed(node, spec, { renderer: "svg", actions: false }).catch((error) => {
        node.textContent = "chart failed: " + error;
        console.error(error);
      });
    }
  }

  function cellKey(cell) { return [cell.run, cell.cell_id, cell.step].map(encodeURIComponent).join("/"); }

  function fillSelect(id, key) {
    const select = document.getElementById(id);
    const values = [...new Set(cells.map((c) => text(c[key])))].sort();
    for (const value of values) select.appendChild(el("option", { text: value }));
    select.addEventListener("change", renderTable);
  }

  function visibleCells() {
    const needle = document.getElementById("filter-text").value.trim().toLowerCase();
    const run = document.getElementById("filter-run").value;
    const verdict = document.getElementById("filter-verdict").value;
    const correctness = document.getElementById("filter-correctness").value;
    let rows = cells.filter((c) =>
      (!run || c.run === run) && (!verdict || text(c.verdict) === verdict) &&
      (!correctness || text(c.correctness) === correctness) &&
      (!needle || COLUMNS.some((k) => text(c[k]).toLowerCase().includes(needle)) || c.cell_id.toLowerCase().includes(needle)));
    if (state.sortKey) {
      const key = state.sortKey;
      rows = rows.slice().sort((a, b) => {
        const x = a[key], y = b[key];
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * state.sortDir;
      });
    }
    return rows;
  }

  function renderTable() {
    const body = document.querySelector("#cell-table tbody");
    const rows = visibleCells();
    const fragment = document.createDocumentFragment();
    for (const cell of rows) {
      const tr = el("tr", { "data-cell": cellKey(cell) });
      for (const key of COLUMNS) {
        const value = key === "cost_usd" && cell[key] !== null ? cell[key].toFixed(6) : text(cell[key]);
        const cls = key === "verdict" ? "v-" + value : key === "correctness" ? "c-" + value : "";
        tr.appendChild(el("td", { text: value, className: cls }));
      }
      tr.addEventListener("click", () => { location.hash = "cell/" + cellKey(cell); });
      fragment.appendChild(tr);
    }
    body.replaceChildren(fragment);
    document.getElementById("cell-count").textContent = rows.length + " of " + cells.length + " cells";
  }

  function sortBy(th) {
    const key = th.dataset.key;
    state.sortDir = state.sortKey === key ? -state.sortDir : 1;
    state.sortKey = key;
    for (const other of document.querySelectorAll("#cell-table th")) other.className = "";
    th.className = state.sortDir === 1 ? "sorted-asc" : "sorted-desc";
    renderTable();
  }

  function source(code, helperLines, primitiveLines) {
    const pre = el("pre", { className: "source" });
    (code || "").replace(/\n$/, "").split("\n").forEach((line, i) => {
      const n = i + 1;
      const cls = ["line", helperLines.has(n) ? "helper" : "", primitiveLines.has(n) ? "primitive" : ""].join(" ").trim();
      pre.appendChild(el("span", { className: cls, text: line || " " }));
    });
    return pre;
  }

  function table(headers, rows) {
    return el("table", { className: "data" }, [
      el("thead", {}, [el("tr", {}, headers.map((h) => el("th", { text: h })))]),
      el("tbody", {}, rows.map((r) => el("tr", {}, r.map((v) => el("td", { text: text(v) }))))),
    ]);
  }

  function facts(pairs) {
    const dl = el("dl", { className: "facts" });
    for (const [k, v] of pairs) { dl.appendChild(el("dt", { text: k })); dl.appendChild(el("dd", { text: text(v) })); }
    return dl;
  }

  function showCell(key) {
    const cell = cells.find((c) => cellKey(c) === key);
    const target = document.getElementById("cell-detail");
    if (!cell) { target.replaceChildren(el("p", { text: "No cell " + decodeURIComponent(key) })); return; }
    const e = cell.explanation;
    const helperLines = new Set(e.helper_calls.map((c) => c.line));
    const primitiveLines = new Set(e.primitive_calls.map((c) => c.line));
    const header = el("h2", { text: cell.run + " · " + cell.cell_id + " · step " + cell.step });
    const banner = cell.simulated ? el("p", { className: "banner simulated", text: "SIMULATED MODEL: this answer comes from assay's seeded stand-in and is not evidence about any model." }) : null;
    const verdict = el("div", { className: "panel", id: "explanation" }, [
      el("h3", { text: "Verdict: " + text(cell.verdict) + " (" + text(cell.verdict_reason) + ")", className: "v-" + text(cell.verdict) }),
      facts([
        ["decided by", (e.rule || "—") + ": " + e.rule_text],
        ["evaluator", cell.evaluator_version === null ? "—" : "v" + cell.evaluator_version],
        ["helper", e.helper],
        ["helper calls", e.helper_calls.map((c) => "line " + c.line + " (" + c.position + ")").join(", ") || "none"],
        ["primitive calls", e.primitive_calls.map((c) => c.primitive + " line " + c.line).join(", ") || "none"],
        ["declared primitives", e.declared_primitives.join(", ")],
        ["same-named calls", e.same_name_call_lines.join(", ") || "none"],
      ]),
      el("p", { className: "legend" }, [el("span", { className: "helper", text: "helper call" }), el("span", { className: "primitive", text: "primitive call" })]),
      el("h4", { text: "Extracted candidate (" + text(cell.extract_status) + ")" }),
      cell.candidate === null ? el("p", { className: "none", text: "no candidate" }) : source(cell.candidate, helperLines, primitiveLines),
    ]);
    const correctness = el("div", { className: "panel", id: "correctness" }, [
      el("h3", { text: "Correctness (secondary): " + text(cell.correctness) + " (" + text(cell.correctness_reason) + ")", className: "c-" + text(cell.correctness) }),
      cell.cases.length ? table(["case", "outcome", "input", "expected", "actual (local only)", "exception"],
        cell.cases.map((c) => [c.index, c.outcome, c.input, c.expected, c.actual,
          c.exception_type ? c.exception_type + (c.exception_message ? ": " + c.exception_message : "") : null]))
        : el("p", { className: "none", text: "no cases ran" }),
      el("h3", { text: "Metric deltas (after − before)" }),
      cell.metrics.length ? table(["metric", "tool", "before", "after", "delta"],
        cell.metrics.map((m) => [m.metric, m.tool, m.before, m.after,
          m.delta === null ? "missing: " + shorten(m.missing_reason, 60) : m.delta]))
        : el("p", { className: "none", text: "not measured" }),
      el("h3", { text: "Call" }),
      facts([["status", cell.status + (cell.status_reason ? " (" + cell.status_reason + ")" : "")], ["model", cell.model],
        ["subject / arm / repeat", cell.subject + " / " + cell.arm + " / " + cell.repeat],
        ["tokens (prompt, completion)", cell.tokens.map(text).join(", ")], ["reserved (USD)", cell.reservation_usd], ["cost (USD)", cell.cost_usd], ["detail", cell.detail]]),
    ]);
    const prompt = cell.prompt === null ? null : data.prompts[cell.prompt];
    target.replaceChildren(header, ...(banner ? [banner] : []), el("div", { className: "detail-grid" }, [verdict, correctness]),
      el("div", { className: "detail-grid" }, [
        el("div", { className: "panel" }, [el("h3", { text: "Raw response" }), el("pre", { text: text(cell.response), id: "response" })]),
        el("div", { className: "panel" }, [el("h3", { text: "Prompt" }), el("pre", { text: prompt === null ? "(rendered at run time from earlier steps)" : prompt, id: "prompt" })]),
      ]));
  }

  function route() {
    const hash = location.hash.slice(1);
    const cellView = hash.startsWith("cell/");
    document.body.classList.toggle("cell-view", cellView);
    document.getElementById("cell").hidden = !cellView;
    if (cellView) { showCell(hash.slice(5)); window.scrollTo(0, 0); }
  }

  drawCharts();
  fillSelect("filter-verdict", "verdict");
  fillSelect("filter-correctness", "correctness");
  document.getElementById("filter-run").addEventListener("change", renderTable);
  document.getElementById("filter-text").addEventListener("input", renderTable);
  for (const th of document.querySelectorAll("#cell-table th")) th.addEventListener("click", () => sortBy(th));
  renderTable();
  window.addEventListener("hashchange", route);
  route();
})();
