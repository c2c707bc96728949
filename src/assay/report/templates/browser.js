// The report page: draws the Vega-Lite charts and runs the cell browser. Every value that came
// from a model or a candidate is put in the page with textContent, never as HTML.
(function () {
  "use strict";
  const specs = JSON.parse(document.getElementById("chart-specs").textContent);
  const paired = JSON.parse(document.getElementById("paired-data").textContent);
  // the cells, decoded by loadCells; a cell's prompt, response and candidate are indexes into
  // texts, read with textOf
  let cells = [];
  let texts = { lines: [], joined: new Map() };
  const FORMAT = "assay-cells-v1";
  const COLUMNS = ["run", "subject", "arm", "repeat", "step", "status", "outcome", "verdict_reason", "correctness_outcome", "cost_usd"];
  // what a link's filter names (#cells?run=a,b&outcome=not-run) and the cell field it matches
  const LINK_FILTERS = { run: "run", subject: "subject", arm: "arm", step: "step", status: "status",
    outcome: "outcome", correctness: "correctness_outcome" };
  // rows drawn at once: building every row of a 10,000-cell study at load took 1.3 s more than
  // the rest of the page (benchmarks/rehearsal_scale.py); "show all" draws the rest
  const PAGE_ROWS = 500;
  const state = { sortKey: null, sortDir: 1, linked: {}, limit: PAGE_ROWS };

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

  // The cell data (assay.report.cell_payload): base64 of gzip of JSON {format, texts, cells}.
  // Each text is pieces: a string of literal lines joined by "\n", or [text, first line, lines]
  // copying lines of an earlier text. The browser's own DecompressionStream inflates it.
  async function loadCells() {
    const encoded = document.getElementById("cell-data").textContent.trim();
    const binary = atob(encoded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    const payload = JSON.parse(await new Response(stream).text());
    if (payload.format !== FORMAT) throw new Error("cell data in format " + payload.format + ", not " + FORMAT);
    const lines = [];
    for (const pieces of payload.texts) {
      const mine = [];
      for (const piece of pieces) {
        if (typeof piece === "string") { for (const line of piece.split("\n")) mine.push(line); continue; }
        const [source, start, length] = piece;
        const earlier = lines[source];
        for (let i = start; i < start + length; i++) mine.push(earlier[i]);
      }
      lines.push(mine);
    }
    texts = { lines, joined: new Map() };
    cells = payload.cells;
  }

  // a cell's prompt, response or candidate as it was stored (null where it has none)
  function textOf(cell, field) {
    const index = cell[field];
    if (index === null || index === undefined) return null;
    let joined = texts.joined.get(index);
    if (joined === undefined) { joined = texts.lines[index].join("\n"); texts.joined.set(index, joined); }
    return joined;
  }

  function cellKey(cell) { return [cell.run, cell.cell_id, cell.step].map(encodeURIComponent).join("/"); }
  function subjectKey(cell) { return "#subject/" + [cell.run, cell.subject, cell.step].map(encodeURIComponent).join("/"); }

  function fillSelect(id, key) {
    const select = document.getElementById(id);
    const values = [...new Set(cells.map((c) => text(c[key])))].sort();
    for (const value of values) select.appendChild(el("option", { text: value }));
    select.addEventListener("change", renderTable);
  }

  function linkedMatch(cell) {
    return Object.entries(state.linked).every(([key, values]) => values.has(text(cell[LINK_FILTERS[key]])));
  }

  function visibleCells() {
    const needle = document.getElementById("filter-text").value.trim().toLowerCase();
    const run = document.getElementById("filter-run").value;
    const verdict = document.getElementById("filter-verdict").value;
    const correctness = document.getElementById("filter-correctness").value;
    let rows = cells.filter((c) =>
      (!run || c.run === run) && (!verdict || text(c.outcome) === verdict) &&
      (!correctness || text(c.correctness_outcome) === correctness) && linkedMatch(c) &&
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

  // a new filter, sort or link: the first PAGE_ROWS matching cells
  function renderTable() {
    state.limit = PAGE_ROWS;
    drawRows();
  }

  function drawRows() {
    const body = document.querySelector("#cell-table tbody");
    const rows = visibleCells();
    const fragment = document.createDocumentFragment();
    for (const cell of rows.slice(0, state.limit)) {
      const tr = el("tr", { "data-cell": cellKey(cell) });
      for (const key of COLUMNS) {
        const value = key === "cost_usd" && cell[key] !== null ? cell[key].toFixed(6) : text(cell[key]);
        const cls = key === "outcome" ? "v-" + value : key === "correctness_outcome" ? "c-" + value : "";
        tr.appendChild(el("td", { text: value, className: cls }));
      }
      tr.addEventListener("click", () => { location.hash = "cell/" + cellKey(cell); });
      fragment.appendChild(tr);
    }
    body.replaceChildren(fragment);
    const hidden = Math.max(0, rows.length - state.limit);
    document.getElementById("cell-count").textContent = rows.length + " of " + cells.length + " cells" +
      (hidden ? " (the first " + state.limit + " shown)" : "");
    const more = document.getElementById("cell-more");
    more.hidden = hidden === 0;
    more.textContent = "show all " + rows.length + " (" + hidden + " more)";
    const linked = Object.entries(state.linked);
    const shown = document.getElementById("linked-filter");
    shown.hidden = linked.length === 0;
    document.getElementById("linked-filter-text").textContent =
      linked.map(([key, values]) => key + " = " + [...values].join(" or ")).join(", ");
  }

  // #cells?run=a&arm=x,y: the cells behind a number on the page
  function applyLink(query) {
    state.linked = {};
    for (const [key, value] of new URLSearchParams(query)) {
      if (LINK_FILTERS[key]) state.linked[key] = new Set(value.split(","));
    }
    for (const id of ["filter-text", "filter-run", "filter-verdict", "filter-correctness"]) document.getElementById(id).value = "";
    renderTable();
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
      el("h3", { text: cell.verdict === null
        ? "Verdict: none, " + text(cell.missing) + " (" + text(cell.status_reason || cell.verdict_reason) + ")"
        : "Verdict: " + cell.verdict + " (" + text(cell.verdict_reason) + ")", className: "v-" + text(cell.outcome) }),
      el("p", {}, [el("a", { href: subjectKey(cell), text: "this subject's arms side by side →", className: "paired" })]),
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
      cell.candidate === null ? el("p", { className: "none", text: "no candidate" }) : source(textOf(cell, "candidate"), helperLines, primitiveLines),
    ]);
    const correctness = el("div", { className: "panel", id: "correctness" }, [
      el("h3", { text: "Correctness (secondary): " + text(cell.correctness_outcome) + " (" + text(cell.correctness_reason) + ")", className: "c-" + text(cell.correctness_outcome) }),
      cell.cases.length ? table(["case", "outcome", "exception type"],
        cell.cases.map((c) => [c.index, c.outcome, c.exception_type]))
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
    const prompt = textOf(cell, "prompt");
    target.replaceChildren(header, ...(banner ? [banner] : []), el("div", { className: "detail-grid" }, [verdict, correctness]),
      el("div", { className: "detail-grid" }, [
        el("div", { className: "panel" }, [el("h3", { text: "Raw response" }), el("pre", { text: text(textOf(cell, "response")), id: "response" })]),
        el("div", { className: "panel" }, [el("h3", { text: "Prompt" }), el("pre", { text: prompt === null ? "(rendered at run time from earlier steps)" : prompt, id: "prompt" })]),
      ]));
  }

  // A subject's arms side by side: every repeat of every arm, the lower median per arm, the
  // direction against the reference arm, and the candidates of the first repeat.
  function showSubject(key) {
    const [run, subject, stepText] = key.split("/").map(decodeURIComponent);
    const step = Number(stepText);
    const target = document.getElementById("subject-detail");
    const info = paired[run];
    const mine = cells.filter((c) => c.run === run && c.subject === subject && c.step === step);
    if (!info || !mine.length) { target.replaceChildren(el("p", { text: "No subject " + subject + " in run " + run })); return; }
    const medians = {};
    for (const [s, subj, arm, complete, median] of info.medians) if (s === step && subj === subject) medians[arm] = { complete, median };
    const rank = (v) => ["duplicated", "mixed", "reused"].indexOf(v);
    const ref = medians[info.reference];
    const direction = (arm) => {
      if (arm === info.reference) return "reference arm";
      const other = medians[arm];
      if (!ref || !other || !ref.complete || !other.complete) return "incomplete: leaves the comparison";
      const d = rank(ref.median) - rank(other.median);
      return d > 0 ? "favours the reference (this arm regressed)" : d < 0 ? "favours this arm" : "tie";
    };
    const repeats = [...new Set(mine.map((c) => c.repeat))].sort((a, b) => a - b);
    const byKey = Object.fromEntries(mine.map((c) => [c.arm + "/" + c.repeat, c]));
    const head = el("tr", {}, [el("th", { text: "" }), ...info.arms.map((a) => el("th", { text: a + (a === info.reference ? " (reference)" : "") }))]);
    const rows = repeats.map((r) => el("tr", {}, [el("th", { text: "repeat " + r }), ...info.arms.map((a) => {
      const c = byKey[a + "/" + r];
      return el("td", {}, c ? [el("a", { href: "#cell/" + cellKey(c), text: text(c.outcome), className: "v-" + text(c.outcome) })] : []);
    })]));
    rows.push(el("tr", { className: "median" }, [el("th", { text: "lower median" }), ...info.arms.map((a) => {
      const m = medians[a];
      return el("td", { text: m ? (m.complete ? text(m.median) : "incomplete") : "—" });
    })]));
    rows.push(el("tr", {}, [el("th", { text: "against " + info.reference }), ...info.arms.map((a) => el("td", { text: direction(a) }))]));
    const first = repeats[0];
    const sources = info.arms.map((a) => {
      const c = byKey[a + "/" + first];
      return el("div", { className: "panel" }, [el("h4", { text: a + ", repeat " + first + ": " + (c ? text(c.outcome) : "—") }),
        c && c.candidate !== null ? source(textOf(c, "candidate"), new Set(c.explanation.helper_calls.map((x) => x.line)), new Set(c.explanation.primitive_calls.map((x) => x.line)))
          : el("p", { className: "none", text: c ? "no candidate (" + text(c.missing) + ")" : "no cell" })]);
    });
    const banner = info.simulated ? el("p", { className: "banner simulated", text: "SIMULATED MODEL: these answers come from assay's seeded stand-in and are not evidence about any model." }) : null;
    target.replaceChildren(el("h2", { text: run + " · " + subject + " · step " + step + ": arms side by side" }), ...(banner ? [banner] : []),
      el("table", { className: "data paired", id: "paired-table" }, [el("thead", {}, [head]), el("tbody", {}, rows)]),
      el("div", { className: "arms-grid" }, sources));
  }

  function route() {
    const hash = location.hash.slice(1);
    const cellView = hash.startsWith("cell/");
    const subjectView = hash.startsWith("subject/");
    document.body.classList.toggle("cell-view", cellView || subjectView);
    document.getElementById("cell").hidden = !cellView;
    document.getElementById("subject").hidden = !subjectView;
    if (cellView) { showCell(hash.slice(5)); window.scrollTo(0, 0); }
    else if (subjectView) { showSubject(hash.slice(8)); window.scrollTo(0, 0); }
    else if (hash.startsWith("cells?")) {
      applyLink(hash.slice(6));
      document.getElementById("cells").scrollIntoView();
    }
  }

  drawCharts();
  loadCells().then(start, (error) => {
    document.getElementById("cell-count").textContent = "the cells could not be decoded: " + error;
    console.error(error);
  });

  // the cell browser and the views, once the cells are decoded; the page is ready for its
  // reader (and for tests: data-cells="ready" on <html>) after the first route
  function start() {
    fillSelect("filter-verdict", "outcome");
    fillSelect("filter-correctness", "correctness_outcome");
    document.getElementById("linked-filter-clear").addEventListener("click", () => { state.linked = {}; history.replaceState(null, "", "#cells"); renderTable(); });
    document.getElementById("filter-run").addEventListener("change", renderTable);
    document.getElementById("cell-more").addEventListener("click", () => { state.limit = Infinity; drawRows(); });
    document.getElementById("filter-text").addEventListener("input", renderTable);
    for (const th of document.querySelectorAll("#cell-table th")) th.addEventListener("click", () => sortBy(th));
    renderTable();
    window.addEventListener("hashchange", route);
    route();
    document.documentElement.dataset.cells = "ready";
  }
})();
