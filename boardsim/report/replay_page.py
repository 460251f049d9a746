"""The replay page: one self-contained HTML file (no server, no network; it works from ``file://``).

The game's data (replays.py's ``gather``) is embedded as JSON in a ``<script type="application/json">``
block; a small script draws the step the reader is at.  Layout, top to bottom: the answer (who won, why
this deal), the controls (buttons, arrow keys, a round menu, the omniscient toggle), the score-over-time
chart (each point jumps to its round), the table as the acting seat saw it (its options drawn as cards, the
chosen one first and framed, with the search's visit shares or the model's probabilities) and the numbers of
its decision view; with the toggle on, the whole table's log of that round.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DATA_ID = "replay-data"

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.2em auto;max-width:72em;padding:0 1em;color:#222}
h1{font-size:1.4em;margin:.2em 0}.answer{background:#f3f6fa;border-left:4px solid #3465a4;padding:.5em 1em}
.controls{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #ddd;z-index:2}
.controls button{font-size:1em;padding:.2em .8em}.controls label{margin-left:1em}
#where{font-weight:600;margin-left:1em}.row{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}
table{border-collapse:collapse;margin:.5em 0;font-size:.85em}
td,th{border:1px solid #ccc;padding:.2em .4em;text-align:right}
.row>div{max-width:100%;overflow-x:auto}td.text{min-width:13em}
th{background:#f0f0f0}td.text{text-align:left}tr.chosen td{background:#fff4c2;font-weight:600}
pre{background:#fafafa;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:.85em;max-height:30em}
.hidden{display:none}.note{color:#555;font-size:.9em}svg text{font-family:system-ui,sans-serif}
"""

_SCRIPT = (Path(__file__).parent / "replay.js").read_text(encoding="utf-8")


def _short(label: str) -> str:
    return label if len(label) <= 16 else label[:15] + "\u2026"


def embed(data: Mapping[str, Any]) -> str:
    """The data as the page embeds it: JSON with ``<`` escaped, so no text in it can close the script block."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def html_page(data: Mapping[str, Any]) -> str:
    """The whole page for ``data`` (replays.py's ``gather`` plus ``reason``)."""
    esc = html.escape
    d = dict(data)
    d["short"] = [_short(s) for s in d["seats"]]
    d["progress_measure_short"] = d["progress_measure"].split(" (")[0].split(";")[0]
    win = d["win"]
    top = max(win) if win else 0
    winners = [f"P{i} ({d['seats'][i]})" for i, w in enumerate(win) if w == top and top > 0]
    scores = ", ".join(f"P{i} {s}" for i, s in enumerate(d["score"]))
    who = " and ".join(winners) + (" share the win" if len(winners) > 1 else " wins") if winners else "Nobody wins"
    seats = "".join(f"<li>P{i}: {esc(s)}</li>" for i, s in enumerate(d["seats"]))
    return "".join([
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>Replay: {esc(d['title'])}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Replay: {esc(d['title'])}</h1>",
        f"<p class='answer'><b>{esc(who)}</b> (final scores: {esc(scores)}). "
        f"Why this deal: {esc(str(d.get('reason', '')))}.</p>",
        f"<ul>{seats}</ul>",
        "<p class='note'>Each step is a decision where a seat had a choice. By default the page shows what the "
        "acting seat saw (its decision view and its options); tick <i>omniscient view</i> to read the whole "
        "table's log of the step's round, every hand shown. Search seats show each option's share of the root's "
        "visits and its value (the search's estimate of the seat's win share after that option, the mean of its "
        "rollouts' win shares); learned seats the "
        "model's probability. Keys: \u2190 \u2192 step, Home / End.</p>",
        "<div class='controls'><button id='prev' type='button'>\u25C0 back</button> "
        "<button id='next' type='button'>forward \u25B6</button>",
        f"<label>jump to <select id='round' aria-label='{esc(d['round_name'])}'></select></label>",
        "<label><input type='checkbox' id='omni'> omniscient view</label><span id='where'></span></div>",
        "<svg id='chart' role='img' aria-label='score over time' width='640' height='260'></svg>",
        "<div><svg id='scene' role='img' aria-label='the table as the acting seat saw it'></svg></div>",
        "<div><svg id='board' role='img' aria-label='the public table: grids or towns'></svg></div>",
        "<div class='row'><div><h3>Options (chosen first)</h3><table id='options'></table></div>",
        "<div><h3>Decision view</h3><table id='view'></table></div></div>",
        "<div id='omniscient' class='hidden'><h3>Omniscient view: the table's log of this round</h3>"
        "<pre id='log'></pre></div>",
        f"<script type='application/json' id='{DATA_ID}'>{embed(d)}</script>",
        f"<script>{_SCRIPT}</script></body></html>",
    ])


def read_data(text: str) -> dict[str, Any]:
    """The data a page embeds (tests read it back)."""
    start = text.index(f"id='{DATA_ID}'>") + len(f"id='{DATA_ID}'>")
    return json.loads(text[start:text.index("</script>", start)])
