// The explorer's behaviour: sortable, filterable tables, each figure as an interactive chart (its spec, read off the
// matplotlib figure: decoders.tables.charts) and, per experiment with records, the per-instance charts (plotly).
// Data come from data.js (window.EXPLORER_DATA, window.EXPLORER_FIGURES): a page opened from disk cannot fetch.
"use strict";

(function () {
  const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

  function cellValue(cell) {
    const text = cell.textContent.trim();
    const bare = text.replace(/[,%x×]/g, "").split(/\s|\[/)[0];
    return NUMBER.test(bare) ? { number: parseFloat(bare), text } : { number: null, text };
  }

  function setupTable(block) {
    const table = block.querySelector("table.data");
    const tbody = table.tBodies[0];
    const headers = Array.from(table.tHead.rows[0].cells);
    const names = headers.map((th) => th.textContent.trim().toLowerCase());
    const rows = Array.from(tbody.rows);
    const count = block.querySelector(".count");
    const input = block.querySelector("input.filter");
    let sortColumn = -1;
    let ascending = true;

    function applyFilter() {
      const tokens = input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      for (const row of rows) {
        const cells = Array.from(row.cells).map((c) => c.textContent.toLowerCase());
        const keep = tokens.every((token) => {
          const negate = token.startsWith("-") && token.length > 1;
          const word = negate ? token.slice(1) : token;
          const colon = word.indexOf(":");
          let hit;
          if (colon > 0 && names.includes(word.slice(0, colon))) {
            hit = cells[names.indexOf(word.slice(0, colon))].includes(word.slice(colon + 1));
          } else {
            hit = cells.some((c) => c.includes(word));
          }
          return negate ? !hit : hit;
        });
        row.hidden = !keep;
        if (keep) shown += 1;
      }
      count.textContent = `${shown} of ${rows.length} rows`;
    }

    function sortBy(index) {
      ascending = sortColumn === index ? !ascending : true;
      sortColumn = index;
      const keyed = rows.map((row, order) => ({ row, order, value: cellValue(row.cells[index] || row.insertCell()) }));
      const numeric = keyed.every((k) => k.value.number !== null || k.value.text === "");
      keyed.sort((a, b) => {
        const ea = a.value.text === "";
        const eb = b.value.text === "";
        if (ea !== eb) return ea ? 1 : -1; // empty cells last either way
        let d = numeric ? a.value.number - b.value.number : a.value.text.localeCompare(b.value.text);
        if (!ascending) d = -d;
        return d || a.order - b.order;
      });
      keyed.forEach((k) => tbody.appendChild(k.row));
      headers.forEach((th, i) => th.setAttribute("aria-sort", i === index ? (ascending ? "ascending" : "descending") : "none"));
    }

    headers.forEach((th, index) => th.addEventListener("click", () => sortBy(index)));
    input.addEventListener("input", applyFilter);
    block.explorer = { sortBy, applyFilter };
  }

  const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

  function option(select, value, label) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    select.appendChild(o);
  }

  function logWanted(values) {
    const positive = values.filter((v) => v !== null && v > 0);
    if (positive.length === 0 || positive.length < values.filter((v) => v !== null).length) return false;
    return Math.max(...positive) / Math.min(...positive) > 100;
  }

  function setupInstances(block) {
    const name = block.dataset.experiment;
    const data = (window.EXPLORER_DATA || {})[name];
    if (!data) return;
    const a = block.querySelector(".variant-a");
    const b = block.querySelector(".variant-b");
    const metric = block.querySelector(".metric");
    const bySize = block.querySelector(".variant-size");
    data.variants.forEach((v, i) => {
      option(a, i, v);
      option(b, i, v);
      option(bySize, i, v);
    });
    b.value = data.variants.length > 1 ? 1 : 0;
    option(metric, "objective", "objective");
    if (data.quality) option(metric, "qualityValues", data.quality);
    const n = data.id.length;
    const keyOf = (i) => data.dataset[i] + "\u0000" + data.id[i];
    const byVariant = data.variants.map(() => new Map());
    for (let i = 0; i < n; i += 1) byVariant[data.variant[i]].set(keyOf(i), i);
    const many = n > 4000;
    const kind = many ? "scattergl" : "scatter";
    const config = { responsive: true, displaylogo: false, toImageButtonOptions: { format: "svg" } };

    function pairs(va, vb) {
      const out = [];
      for (const [key, i] of byVariant[va]) {
        const j = byVariant[vb].get(key);
        if (j !== undefined) out.push([i, j]);
      }
      return out;
    }

    function scatter(target, column, label, va, vb) {
      const pts = pairs(va, vb).filter(([i, j]) => data[column][i] !== null && data[column][j] !== null);
      const traces = data.datasets.map((dataset, d) => {
        const mine = pts.filter(([i]) => data.dataset[i] === d);
        return {
          type: kind,
          mode: "markers",
          name: dataset,
          marker: { color: PALETTE[d % PALETTE.length], size: 6, opacity: 0.7 },
          x: mine.map(([i]) => data[column][i]),
          y: mine.map(([, j]) => data[column][j]),
          customdata: mine.map(([i, j]) => [data.id[i], data.size[i], data.statuses[data.status[i]], data.statuses[data.status[j]]]),
          hovertemplate: "instance %{customdata[0]}<br>size %{customdata[1]}<br>" +
            `${data.variants[va]}: %{x} (%{customdata[2]})<br>${data.variants[vb]}: %{y} (%{customdata[3]})<extra>${dataset}</extra>`,
        };
      }).filter((t) => t.x.length > 0);
      const all = pts.flatMap(([i, j]) => [data[column][i], data[column][j]]);
      const log = logWanted(all);
      const lo = all.length ? Math.min(...all) : 0;
      const hi = all.length ? Math.max(...all) : 1;
      traces.push({ type: "scatter", mode: "lines", name: "y = x", x: [lo, hi], y: [lo, hi], line: { color: "#444", dash: "dash", width: 1 }, hoverinfo: "skip" });
      const axis = (title) => ({ title: { text: title }, type: log ? "log" : "linear", zeroline: false });
      Plotly.react(target, traces, {
        title: { text: `${label}: ${data.variants[vb]} against ${data.variants[va]} (${pts.length} instances in both)` },
        xaxis: axis(`${data.variants[va]} ${label}`),
        yaxis: axis(`${data.variants[vb]} ${label}`),
        margin: { t: 50, r: 10 },
        height: 460,
        legend: { title: { text: "dataset" } },
      }, config);
    }

    function sizeChart() {
      const v = Number(bySize.value);
      const idx = [];
      for (let i = 0; i < n; i += 1) if (data.variant[i] === v && data.seconds[i] !== null) idx.push(i);
      const traces = data.datasets.map((dataset, d) => {
        const mine = idx.filter((i) => data.dataset[i] === d);
        return {
          type: kind,
          mode: "markers",
          name: dataset,
          marker: { color: PALETTE[d % PALETTE.length], size: 6, opacity: 0.7 },
          x: mine.map((i) => data.size[i]),
          y: mine.map((i) => data.seconds[i]),
          customdata: mine.map((i) => [data.id[i], data.statuses[data.status[i]]]),
          hovertemplate: "instance %{customdata[0]}<br>size %{x}<br>%{y} s (%{customdata[1]})<extra>" + dataset + "</extra>",
        };
      }).filter((t) => t.x.length > 0);
      Plotly.react(block.querySelector(".size-time"), traces, {
        title: { text: `seconds against instance size: ${data.variants[v]}` },
        xaxis: { title: { text: "size" }, type: logWanted(idx.map((i) => data.size[i])) ? "log" : "linear" },
        yaxis: { title: { text: "seconds" }, type: logWanted(idx.map((i) => data.seconds[i])) ? "log" : "linear" },
        margin: { t: 50, r: 10 },
        height: 420,
        legend: { title: { text: "dataset" } },
      }, config);
    }

    function pairCharts() {
      const va = Number(a.value);
      const vb = Number(b.value);
      scatter(block.querySelector(".scatter-time"), "seconds", "seconds", va, vb);
      const m = metric.value;
      scatter(block.querySelector(".scatter-value"), m, m === "objective" ? "objective" : data.quality, va, vb);
    }

    [a, b, metric].forEach((s) => s.addEventListener("change", pairCharts));
    bySize.addEventListener("change", sizeChart);
    pairCharts();
    sizeChart();
  }

  function setupFigure(block) {
    const spec = (window.EXPLORER_FIGURES || {})[block.dataset.chart];
    const target = block.querySelector(".figure-chart");
    if (!spec) {
      target.insertAdjacentHTML("beforeend", "<p class=\"error\">no chart data for this figure: see the PNG.</p>");
      block.querySelector("details").open = true;
      return;
    }
    const name = block.dataset.chart.split("/").pop().replace(/\.png$/, "");
    Plotly.newPlot(target, spec.data, spec.layout, {
      responsive: true, displaylogo: false, toImageButtonOptions: { format: "svg", filename: name },
    });
  }

  // A followed link (the header's section links, a scoreboard row's table link) lands below the sticky header,
  // whatever height its wrapped links give it.
  function padBelowHeader() {
    const header = document.querySelector("header");
    if (header) document.documentElement.style.scrollPaddingTop = `${header.offsetHeight + 8}px`;
  }

  function start() {
    padBelowHeader();
    window.addEventListener("resize", padBelowHeader);
    document.querySelectorAll(".table-block").forEach(setupTable);
    if (typeof Plotly === "undefined") {
      document.querySelectorAll(".instances:not(.none), .figure-block").forEach((block) => {
        block.insertAdjacentHTML("beforeend", "<p class=\"error\">plotly.min.js did not load: the charts cannot be drawn.</p>");
      });
      document.querySelectorAll(".figure-block details").forEach((details) => { details.open = true; });
    } else {
      document.querySelectorAll(".instances:not(.none)").forEach(setupInstances);
      document.querySelectorAll(".figure-block").forEach(setupFigure);
    }
    document.body.dataset.ready = "1";
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
