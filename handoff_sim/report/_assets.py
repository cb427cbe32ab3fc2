"""The report's inline style sheet and script: small, no network, no framework.

The script builds a scenario's timeline from its JSON data when its section is first
opened (so a 1,000-scenario report stays light), and filters sections by name and
status. It only ever sets ``textContent`` and attributes, never HTML.
"""

from __future__ import annotations

__all__ = ["SCRIPT", "STYLE"]

STYLE = """
:root{--lbl:230px;--out:330px;--row:22px;--ink:#1d1d1f;--dim:#5f6368;--line:#d5d7db;
font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink)}
body{margin:0 auto;max-width:1500px;padding:14px 22px 40px}
h1{font-size:20px;margin:0 0 2px}h2{font-size:15px;margin:18px 0 6px}
h3{font-size:13px;margin:12px 0 4px}
code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
.dim{color:var(--dim)}
.badge{display:inline-block;font-weight:600;font-size:12px;padding:0 6px;border-radius:3px;
white-space:nowrap}
.b-passed,.b-completed,.b-ok{background:#e3f2e5;color:#1b5e20}
.b-failed,.b-error{background:#fde4e1;color:#a4161a}
.b-skipped,.b-cancelled,.b-open{background:#eceff1;color:#37474f}
.b-denied{background:#f1e4f6;color:#6a1b9a}.b-fallback{background:#e2ecf9;color:#0d47a1}
.b-unavailable{background:#e0e0e0;color:#212121}.b-timeout{background:#fff0e0;color:#a84300}
details.files>summary{cursor:pointer}details.files>summary>h2{display:inline-block}
table.files{border-collapse:collapse;margin:4px 0 8px}
.files th,.files td{border-bottom:1px solid var(--line);padding:2px 12px 2px 0;text-align:left}
.files td.n{text-align:right}.files button{all:unset;cursor:pointer;color:#0b57d0}
.files button:hover{text-decoration:underline}
.controls{position:sticky;top:0;z-index:5;background:#fff;display:flex;flex-wrap:wrap;gap:8px;
align-items:center;padding:8px 0;border-bottom:1px solid var(--line)}
.controls input{width:280px;padding:3px 6px}
.legend{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0 4px;color:var(--dim);font-size:12px}
.legend span{display:inline-flex;align-items:center;gap:4px}
.legend i{display:inline-block;width:26px;height:11px;border-radius:2px}
details.scn{border:1px solid var(--line);border-left:5px solid #43a047;border-radius:5px;
margin:7px 0}
details.scn[data-status=failed],details.scn[data-status=error]{border-left-color:#c62828}
details.scn[data-status=skipped]{border-left-color:#90a4ae}
details.scn>summary{cursor:pointer;padding:5px 10px;display:flex;flex-wrap:wrap;gap:4px 12px;
align-items:baseline}
details.scn>summary b{font-size:14px}
.body{padding:2px 12px 10px}
.mm{background:#fff6f5;border:1px solid #f1bfb9;border-radius:4px;padding:6px 10px;
margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.mm .where{font-weight:600;color:#a4161a}
.mm.expected{background:#f4f6f8;border-color:var(--line)}
.note{white-space:pre-wrap;overflow-wrap:anywhere;max-height:320px;overflow:auto}
.tl{margin:8px 0;border:1px solid var(--line);border-radius:4px;position:relative}
.tl.tall{max-height:72vh;overflow-y:auto}
.tl-row{display:grid;grid-template-columns:var(--lbl) minmax(200px,1fr) var(--out);
height:var(--row);align-items:center;position:relative}
.tl-row:nth-child(even){background:#fafbfc}.tl-row:hover{background:#eef3fd}
.tl-head{position:sticky;top:0;z-index:3;background:#f4f5f7;border-bottom:1px solid var(--line);
height:24px;font-size:11px;color:var(--dim)}
.tl-lbl{position:relative;height:100%;display:flex;align-items:center;overflow:hidden;
white-space:nowrap;padding:0 6px 0 8px;box-sizing:border-box}
.tl-lbl .nm{overflow:hidden;text-overflow:ellipsis;flex:0 1 auto}
.tl-lbl .key{color:var(--dim);font-size:11px;margin-left:5px;overflow:hidden;
text-overflow:ellipsis;flex:0 100 auto}
.tl-row[data-kind=run] .tl-lbl{font-weight:600}
.tl-trk{position:relative;height:100%;border-left:1px solid var(--line);
border-right:1px solid var(--line)}
.tl-tick{position:absolute;top:5px;transform:translateX(-50%);white-space:nowrap}
.tl-tick:first-child{transform:none}.tl-tick.last{transform:translateX(-100%)}
.tl-row:not(.tl-head) .tl-trk{background-image:var(--grid,none)}
.tl-out{padding:0 8px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;font-size:12px}
.tl-out[data-status=failed],.tl-out[data-status=open]{color:#a4161a;font-weight:600}
.tl-out[data-status=denied]{color:#6a1b9a;font-weight:600}
.tl-out[data-status=fallback],.tl-out[data-status=unavailable]{color:#0d47a1;font-weight:600}
.tl-out[data-status=cancelled]{color:#455a64;font-weight:600}
.tl-bar,.tl-att,.tl-tail{position:absolute;box-sizing:border-box;min-width:4px}
.tl-bar{top:3px;bottom:3px;background:#eceff1;border:1px solid #90a4ae;border-radius:3px}
.tl-row[data-kind=run] .tl-bar{top:8px;bottom:8px;background:#90a4ae;border:0}
.tl-bar[data-status=denied]{background:#8e24aa;border-color:#6a1b9a;min-width:6px}
.tl-bar[data-status=unavailable]{background:#424242;border-color:#212121}
.tl-bar[data-status=open]{border:2px dashed #c62828}
.tl-att,.tl-tail{top:4px;bottom:4px;color:#fff;font-size:10px;line-height:14px;overflow:hidden;
white-space:nowrap;text-overflow:ellipsis;padding:0 3px;border-right:2px solid #fff;
border-radius:2px}
.tl-note{position:absolute;top:3px;margin-left:8px;font-size:11px;font-weight:600;
white-space:nowrap;color:#6a1b9a}.tl-note.before{margin:0 8px 0 0}
.tl-note[data-status=fallback],.tl-note[data-status=unavailable]{color:#0d47a1}
.tl-note[data-status=failed],.tl-note[data-status=open]{color:#a4161a}
[data-status=ok].tl-att{background:#2e7d32}
[data-status=error].tl-att{background:#c62828}
[data-status=timeout].tl-att,.legend .timeout{background:repeating-linear-gradient(135deg,
#e65100 0 5px,#f08a3c 5px 10px);color:#fff;text-shadow:0 0 2px #7a2a00}
[data-status=cancelled].tl-att,.legend .cancelled{background:repeating-linear-gradient(90deg,
#607d8b 0 3px,#90a4ae 3px 6px)}
[data-status=open].tl-att{background:#fbc02d;color:#000}
.tl-tail[data-status=fallback],.legend .fallback{background:repeating-linear-gradient(45deg,
#1565c0 0 5px,#4f86d0 5px 10px)}
.tl-tail[data-status=unavailable]{background:#424242}
.legend .ok{background:#2e7d32}.legend .error{background:#c62828}
.legend .denied{background:#8e24aa}.legend .unavailable{background:#424242}
.legend .par{width:4px;background:#00897b}
.tl-par{position:absolute;width:0;border-left:3px solid #00897b;top:0;bottom:0}
.tl-par.f{top:50%}.tl-par.l{bottom:50%}
.tl-par.f::after,.tl-par.l::after,.tl-par.m::after{content:"";position:absolute;top:-1.5px;
left:0;width:7px;border-top:3px solid #00897b}
.tl-par.l::after{top:auto;bottom:-1.5px}
.pb{font-size:10px;font-weight:700;color:#00695c;background:#e0f2f1;border-radius:3px;
padding:0 4px;margin-left:6px;flex:none}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:18px}
ul.tree{padding-left:4px}ul.tree li{margin:1px 0}
pre.events{max-height:360px;overflow:auto;background:#f7f7f8;padding:6px;margin:4px 0}
[hidden]{display:none!important}
@media (max-width:900px){:root{--lbl:150px;--out:190px}body{padding:8px}}
"""

SCRIPT = """
(function () {
  "use strict";
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function span(e, a, b, end) {
    e.style.left = (a / end * 100) + "%";
    e.style.width = (Math.max(0, b - a) / end * 100) + "%";
  }
  function row(r, end, indent) {
    var line = el("div", "tl-row"), lbl = el("div", "tl-lbl"), trk = el("div", "tl-trk");
    line.dataset.kind = r[0]; line.dataset.status = r[6]; line.dataset.key = r[9];
    line.dataset.depth = r[1];
    if (r[10]) line.dataset.parallel = r[10];
    lbl.style.paddingLeft = (8 + r[1] * indent) + "px";
    lbl.title = r[3];
    r[12].forEach(function (b) {
      var p = el("i", "tl-par " + b[1]);
      p.style.left = (b[0] * indent - 6) + "px";
      lbl.appendChild(p);
    });
    lbl.appendChild(el("span", "nm", (r[0] === "run" ? "\\u25b6 " : "") + r[2]));
    if (r[0] !== "run") lbl.appendChild(el("span", "key", r[9]));
    if (r[12].some(function (b) { return b[1] === "f" && b[0] === r[1]; })) {
      lbl.appendChild(el("span", "pb", "\\u2225 " + r[11] + " parallel"));
    }
    var bar = el("div", "tl-bar");
    bar.dataset.status = r[6]; bar.title = r[7];
    span(bar, r[4], r[5], end);
    trk.appendChild(bar);
    r[8].forEach(function (s) {
      var seg = el("div", s[4] ? "tl-att" : "tl-tail", s[3]);
      seg.dataset.status = s[2]; seg.title = s[3];
      if (s[4]) seg.dataset.attempt = s[4];
      span(seg, s[0], s[1], end);
      trk.appendChild(seg);
    });
    if (r[0] === "handoff" && !r[8].some(function (s) { return s[4]; })) {
      var note = el("span", "tl-note", r[7].split(" \u00b7 ")[0]);
      note.dataset.status = r[6];
      if (r[5] / end > 0.7) {
        note.style.right = (100 - r[4] / end * 100) + "%";
        note.classList.add("before");
      } else {
        note.style.left = (r[5] / end * 100) + "%";
      }
      trk.appendChild(note);
    }
    var out = el("div", "tl-out", r[7]);
    out.dataset.status = r[6]; out.title = r[7];
    line.appendChild(lbl); line.appendChild(trk); line.appendChild(out);
    return line;
  }
  function render(box) {
    if (box.dataset.done) return;
    box.dataset.done = "1";
    var d = JSON.parse(box.querySelector("script").textContent);
    var end = d.end > 0 ? d.end : 1, tl = el("div", "tl"), head = el("div", "tl-row tl-head");
    var ticks = el("div", "tl-trk");
    d.ticks.forEach(function (k, i) {
      var t = el("span", "tl-tick" + (i && k[0] >= end ? " last" : ""), k[1]);
      t.style.left = (k[0] / end * 100) + "%";
      ticks.appendChild(t);
    });
    head.appendChild(el("div", "tl-lbl", d.caption));
    head.appendChild(ticks);
    head.appendChild(el("div", "tl-out", "outcome"));
    tl.appendChild(head);
    d.rows.forEach(function (r) { tl.appendChild(row(r, end, 14)); });
    if (d.rows.length > 40) tl.classList.add("tall");
    var stops = d.ticks.map(function (k) {
      var at = (k[0] / end * 100).toFixed(3) + "%";
      return "transparent " + at + ",#dfe2e6 " + at + ",#dfe2e6 calc(" + at + " + 1px)," +
        "transparent calc(" + at + " + 1px)";
    });
    if (stops.length) {
      tl.style.setProperty("--grid", "linear-gradient(90deg," + stops.join(",") + ")");
    }
    box.appendChild(tl);
  }
  function show(d) {
    if (d.open) d.querySelectorAll(".timeline").forEach(render);
  }
  var all = [].slice.call(document.querySelectorAll("details.scn"));
  all.forEach(function (d) { d.addEventListener("toggle", function () { show(d); }); show(d); });
  var q = document.getElementById("q"), st = document.getElementById("st");
  var shown = document.getElementById("shown");
  function apply() {
    var text = q.value.trim().toLowerCase(), want = st.value, n = 0;
    all.forEach(function (d) {
      var ok = (!want || d.dataset.status === want) &&
        (!text || d.dataset.search.indexOf(text) >= 0);
      d.hidden = !ok;
      if (ok) n += 1;
    });
    shown.textContent = n + " of " + all.length + " shown";
  }
  function expand(open) {
    all.forEach(function (d) { if (!d.hidden) { d.open = open; show(d); } });
  }
  q.addEventListener("input", apply);
  st.addEventListener("change", apply);
  document.getElementById("expand").addEventListener("click", function () { expand(true); });
  document.getElementById("collapse").addEventListener("click", function () { expand(false); });
  document.querySelectorAll("[data-filter]").forEach(function (b) {
    b.addEventListener("click", function () {
      q.value = b.dataset.filter; st.value = ""; apply();
    });
  });
  apply();
  if (location.hash === "#expand-all") expand(true);
})();
"""
