// The replay page's script (report/replay_page.py embeds it): draws the step the reader is at from the
// page's JSON data; no network, no libraries.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("replay-data").textContent);
  var steps = D.steps, n = steps.length, at = 0;
  var colours = ["#3465a4", "#cc0000", "#4e9a06", "#f57900"];
  var NS = "http://www.w3.org/2000/svg";
  function el(tag, attrs, text) {
    var e = tag.indexOf("svg:") === 0 ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function pct(x) { return x === null || x === undefined ? "" : (100 * x).toFixed(1) + "%"; }
  function firstStepOf(round) {
    for (var i = 0; i < n; i++) { if (steps[i].round >= round) { return i; } }
    return n - 1;
  }
  // the round menu
  var menu = document.getElementById("round");
  var seen = {};
  steps.forEach(function (s) {
    if (!seen[s.round]) { seen[s.round] = 1; menu.appendChild(el("option", {value: s.round}, D.round_name + " " + s.round)); }
  });
  menu.addEventListener("change", function () { go(firstStepOf(+menu.value)); });
  // the chart: each seat's progress after each round; a point jumps to the first decision of the round after it
  function chart() {
    var W = 640, H = 260, L = 56, R = 150, T = 30, B = 44;
    var svg = document.getElementById("chart");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    var P = D.progress, rounds = P.length ? P[0].length : 0, lo = 0, hi = 1;
    P.forEach(function (row) { row.forEach(function (v) { lo = Math.min(lo, v); hi = Math.max(hi, v); }); });
    function x(r) { return L + (rounds <= 1 ? 0 : (r - 1) * (W - L - R) / (rounds - 1)); }
    function y(v) { return T + (hi - v) * (H - T - B) / (hi - lo || 1); }
    svg.appendChild(el("svg:text", {x: W / 2 - R / 2, y: 18, "text-anchor": "middle", "font-weight": "600"},
                       "Score over time (" + D.progress_measure_short + ")"));
    svg.appendChild(el("svg:line", {x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#444"}));
    svg.appendChild(el("svg:line", {x1: L, y1: T, x2: L, y2: H - B, stroke: "#444"}));
    svg.appendChild(el("svg:text", {x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle"}, D.round_name + " (click a point to jump there)"));
    svg.appendChild(el("svg:text", {x: 14, y: (T + H - B) / 2, "text-anchor": "middle",
                                    transform: "rotate(-90 14 " + (T + H - B) / 2 + ")"}, "score"));
    for (var r = 1; r <= rounds; r++) {
      if (rounds <= 12 || r % Math.ceil(rounds / 12) === 0 || r === 1) {
        svg.appendChild(el("svg:text", {x: x(r), y: H - B + 16, "text-anchor": "middle", "font-size": 11}, r));
      }
    }
    [lo, (lo + hi) / 2, hi].forEach(function (v) {
      svg.appendChild(el("svg:text", {x: L - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11}, Math.round(v)));
    });
    svg.appendChild(el("svg:line", {id: "now", x1: L, y1: T, x2: L, y2: H - B, stroke: "#999", "stroke-dasharray": "4 3"}));
    P.forEach(function (row, s) {
      var pts = row.map(function (v, i) { return x(i + 1) + "," + y(v); }).join(" ");
      svg.appendChild(el("svg:polyline", {points: pts, fill: "none", stroke: colours[s % 4], "stroke-width": 2}));
      row.forEach(function (v, i) {
        var c = el("svg:circle", {cx: x(i + 1), cy: y(v), r: 4, fill: colours[s % 4], style: "cursor:pointer"});
        c.appendChild(el("svg:title", {}, "P" + s + " after " + D.round_name + " " + (i + 1) + ": " + v));
        c.addEventListener("click", function () { go(firstStepOf(i + 2 <= rounds ? i + 2 : i + 1)); });
        svg.appendChild(c);
      });
      var ly = T + 14 + 18 * s;
      svg.appendChild(el("svg:line", {x1: W - R + 10, y1: ly - 4, x2: W - R + 30, y2: ly - 4, stroke: colours[s % 4], "stroke-width": 3}));
      svg.appendChild(el("svg:text", {x: W - R + 34, y: ly, "font-size": 12}, "P" + s + " " + D.short[s]));
    });
    return function (round) {
      var now = document.getElementById("now");
      now.setAttribute("x1", x(Math.max(1, round))); now.setAttribute("x2", x(Math.max(1, round)));
    };
  }
  var mark = chart();
  // the table as the acting seat saw it: its headline numbers, then its options as cards (the chosen one
  // first, framed), five to a row so that nothing runs off the page
  function scene(s) {
    var svg = document.getElementById("scene");
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var w = 150, h = 92, gap = 10, per = 5, W = per * (w + gap);
    var heads = D.headline.filter(function (f) { return D.features.indexOf(f) >= 0; });
    var hh = heads.length ? 58 : 0;
    var k = Math.min(s.options.length, 15), rows = Math.ceil(k / per);
    var H = 20 + hh + rows * (h + gap) + 10;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("width", W); svg.setAttribute("height", H);
    svg.appendChild(el("svg:text", {x: 0, y: 14, "font-weight": "600"}, "What P" + s.seat + " saw, and its options" +
                       (s.options.length > k ? " (the first " + k + " of " + s.options.length + "; all in the table below)" : "")));
    heads.forEach(function (f, j) {
      var hx = j * (W / Math.max(heads.length, 1)), hw = W / Math.max(heads.length, 1) - 6;
      svg.appendChild(el("svg:rect", {x: hx + 1, y: 22, width: hw, height: 48, rx: 6, fill: "#eef3f9", stroke: "#9ab"}));
      svg.appendChild(el("svg:text", {x: hx + hw / 2, y: 40, "text-anchor": "middle", "font-size": 11}, f.replace(/_/g, " ")));
      svg.appendChild(el("svg:text", {x: hx + hw / 2, y: 62, "text-anchor": "middle", "font-size": 17, "font-weight": "600"},
                         s.view[D.features.indexOf(f)]));
    });
    for (var i = 0; i < k; i++) {
      var o = s.options[i], gx = (i % per) * (w + gap), gy = 22 + hh + Math.floor(i / per) * (h + gap);
      svg.appendChild(el("svg:rect", {x: gx + 1, y: gy, width: w - 2, height: h, rx: 8, fill: o.chosen ? "#fff4c2" : "#f7f7f7",
                                      stroke: o.chosen ? "#c4a000" : "#bbb", "stroke-width": o.chosen ? 3 : 1}));
      var words = o.text.split(" "), line = "", lines = [];
      words.forEach(function (wd) { if ((line + " " + wd).length > 21) { lines.push(line); line = wd; } else { line = line ? line + " " + wd : wd; } });
      lines.push(line);
      lines.slice(0, 3).forEach(function (t, j) {
        svg.appendChild(el("svg:text", {x: gx + 8, y: gy + 20 + 16 * j, "font-size": 12}, t));
      });
      var stat = o.share !== null ? ["visits " + pct(o.share), o.value !== null ? "value " + o.value.toFixed(2) : ""]
        : [o.prob !== null ? "p " + pct(o.prob) : "", ""];
      svg.appendChild(el("svg:text", {x: gx + 8, y: gy + h - 24, "font-size": 12, "font-weight": "600"},
                         (o.chosen ? "\u2714 " : "") + stat[0]));
      svg.appendChild(el("svg:text", {x: gx + 8, y: gy + h - 8, "font-size": 12}, stat[1]));
    }
  }
  // the public table (FlipToons: every seat's grid at the round's flip; Circle the Wagons: both towns), when
  // the game draws one
  var LAND = {D: "#e9c46a", F: "#52a35a", M: "#9c8f80", P: "#c6e28b", S: "#f1f5f9", W: "#6fa8dc"};
  function board(s) {
    var svg = document.getElementById("board");
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var t = s.table === null || s.table === undefined ? null : D.tables[String(s.table)];
    svg.classList.toggle("hidden", !t);
    if (!t) { return; }
    var x0 = 0, H = 0, cell = t.kind === "grids" ? 86 : 26, gap = 30;
    var parts = t.kind === "grids" ? t.grids : t.towns;
    var title = t.kind === "grids" ? "The grids at " + D.round_name + " " + s.table + "'s flip (face up: every seat sees them)"
      : "The towns after " + D.round_name + " " + s.table + " (every seat sees them)";
    svg.appendChild(el("svg:text", {x: 0, y: 14, "font-weight": "600"}, title));
    parts.forEach(function (part, p) {
      var rows = 0, cols = 0;
      if (t.kind === "grids") {
        part.forEach(function (c) { rows = Math.max(rows, c.r + 1); cols = Math.max(cols, c.c + 1); });
      } else {
        rows = part.length; part.forEach(function (r) { cols = Math.max(cols, r.length); });
      }
      svg.appendChild(el("svg:text", {x: x0, y: 36, "font-size": 12, "font-weight": "600"}, "P" + p + (p === s.seat ? " (acting)" : "")));
      if (t.kind === "grids") {
        part.forEach(function (c) {
          var gx = x0 + c.c * (cell + 4), gy = 44 + c.r * (cell * 0.6 + 4);
          svg.appendChild(el("svg:rect", {x: gx, y: gy, width: cell, height: cell * 0.6, rx: 5, fill: "#fdf6e3", stroke: "#b58900"}));
          svg.appendChild(el("svg:text", {x: gx + 5, y: gy + 18, "font-size": 11}, c.card.length > 13 ? c.card.slice(0, 12) + "\u2026" : c.card));
          svg.appendChild(el("svg:text", {x: gx + 5, y: gy + 40, "font-size": 11, "font-weight": "600"}, "fame " + (c.fame === null ? "?" : c.fame)));
        });
        H = Math.max(H, 44 + rows * (cell * 0.6 + 4));
      } else {
        part.forEach(function (r, i) {
          r.forEach(function (c, j) {
            if (c === "..") { return; }
            var gx = x0 + j * cell, gy = 44 + i * cell;
            svg.appendChild(el("svg:rect", {x: gx, y: gy, width: cell - 2, height: cell - 2, fill: LAND[c[0]] || "#ddd", stroke: "#666"}));
            svg.appendChild(el("svg:text", {x: gx + cell / 2 - 1, y: gy + cell / 2 + 4, "text-anchor": "middle", "font-size": 11}, c[1] || ""));
          });
        });
        H = Math.max(H, 44 + rows * cell);
      }
      x0 += cols * (t.kind === "grids" ? cell + 4 : cell) + gap;
    });
    if (t.kind === "towns") {
      svg.appendChild(el("svg:text", {x: 0, y: H + 16, "font-size": 11},
                         "land: D desert, F forest, M mountain, P plains, S snow, W water; letters: the corner's symbol"));
      H += 20;
    }
    var W = Math.max(x0, 520);
    svg.setAttribute("viewBox", "0 0 " + W + " " + (H + 6));
    svg.setAttribute("width", W); svg.setAttribute("height", H + 6);
  }
  function table(s) {
    var t = document.getElementById("options");
    t.innerHTML = "";
    var head = el("tr");
    ["option", "visits (search)", "value (search)", "probability (model)"].concat(D.columns).forEach(function (c) { head.appendChild(el("th", {}, c)); });
    t.appendChild(head);
    s.options.forEach(function (o) {
      var tr = el("tr", o.chosen ? {"class": "chosen"} : {});
      tr.appendChild(el("td", {"class": "text"}, (o.chosen ? "\u25B6 " : "") + o.text));
      tr.appendChild(el("td", {}, pct(o.share)));
      tr.appendChild(el("td", {}, o.value === null ? "" : o.value.toFixed(3)));
      tr.appendChild(el("td", {}, pct(o.prob)));
      o.row.forEach(function (v) { tr.appendChild(el("td", {}, v)); });
      t.appendChild(tr);
    });
    var v = document.getElementById("view");
    v.innerHTML = "";
    var h2 = el("tr"); h2.appendChild(el("th", {}, "what P" + s.seat + " saw")); h2.appendChild(el("th", {}, "value"));
    v.appendChild(h2);
    D.features.forEach(function (f, i) {
      var tr = el("tr"); tr.appendChild(el("td", {"class": "text"}, f)); tr.appendChild(el("td", {}, s.view[i])); v.appendChild(tr);
    });
  }
  function log(s) {
    var parts = D.log.filter(function (b) { return b.round === s.round || (s.round <= 1 && b.round === 0); });
    document.getElementById("log").textContent = parts.map(function (b) { return b.text; }).join("\n");
  }
  function go(i) {
    at = Math.max(0, Math.min(n - 1, i));
    if (!n) { return; }
    var s = steps[at];
    document.getElementById("where").textContent = "step " + (at + 1) + " of " + n + " \u00B7 " + D.round_name + " " +
      s.round + " \u00B7 P" + s.seat + " (" + D.seats[s.seat] + ") \u00B7 " + s.kind;
    document.body.setAttribute("data-step", at);
    menu.value = s.round;
    scene(s); board(s); table(s); log(s); mark(s.round);
    if (window.history && window.history.replaceState) {
      try { window.history.replaceState(null, "", "#step=" + (at + 1)); } catch (e) { /* file:// may refuse */ }
    }
  }
  document.getElementById("prev").addEventListener("click", function () { go(at - 1); });
  document.getElementById("next").addEventListener("click", function () { go(at + 1); });
  document.getElementById("omni").addEventListener("change", function (e) {
    document.getElementById("omniscient").classList.toggle("hidden", !e.target.checked);
  });
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "SELECT") { return; }
    if (e.key === "ArrowRight") { go(at + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(at - 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); } else if (e.key === "End") { go(n - 1); }
  });
  var m = /step=(\d+)/.exec(window.location.hash);
  go(m ? +m[1] - 1 : 0);
})();
