"""index.html: the answer and its caveats first, then the charts with captions, the tables, the summary,
and the provenance last."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from boardsim import safe_io


def write_index(
    out_dir: Path,
    title: str,
    description: str,
    images: Sequence[tuple[str, str]],
    provenance: Mapping[str, object],
    summary: pd.DataFrame,
    tables: Sequence[tuple[str, str]] = (),
    warnings: Sequence[str] = (),
    answer: Sequence[str] = (),
    caveats: Sequence[str] = (),
    replays: Sequence[tuple[str, str]] = (),
) -> Path:
    esc = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{esc(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "img{max-width:100%;border:1px solid #ddd}figure{margin:1.5em 0}"
        "table{border-collapse:collapse;font-size:0.85em}td,th{border:1px solid #ccc;padding:2px 6px}"
        "#answer{background:#f4f7fb;border-left:4px solid #3b6ea5;padding:0.2em 1em 0.6em}"
        "</style></head><body>",
        f"<h1>{esc(title)}</h1>",
    ]
    if description:
        parts.append(f"<p>{esc(description)}</p>")
    parts.append("<section id='answer'><h2>Answer</h2>")
    parts += [f"<p>{esc(s)}</p>" for s in answer] or ["<p>No finished results in this folder yet.</p>"]
    if caveats or warnings:
        parts.append("<h3>Caveats</h3>")
    if caveats:
        parts.append("<ul id='caveats'>")
        parts += [f"<li>{esc(c)}</li>" for c in caveats]
        parts.append("</ul>")
    if warnings:  # the seat list's coverage problems: a listed policy never played, or policies repeat
        parts.append("<ul id='warnings'>")
        parts += [f"<li>Seat list: {esc(w)}</li>" for w in warnings]
        parts.append("</ul>")
    if replays:  # step-through replays of deals picked by what happened in them (replays.py)
        parts.append("<h3>Watch a game</h3><ul id='replays'>")
        parts += [f"<li><a href='{esc(name)}'>{esc(name)}</a>: {esc(what)}</li>" for name, what in replays]
        parts.append("</ul>")
    parts.append("</section>")
    for name, caption in images:
        parts.append(f"<figure><img src='{esc(name)}' alt='{esc(caption)}'><figcaption>{esc(caption)}"
                     "</figcaption></figure>")
    if tables:
        parts.append("<h2>Tables</h2><ul>")
        for name, caption in tables:
            parts.append(f"<li><a href='{esc(name)}'>{esc(name)}</a>: {esc(caption)}</li>")
        parts.append("</ul>")
    if not summary.empty:
        if "level" in summary.columns:  # the per-policy rows answer the question: list them first
            summary = summary.sort_values("level", key=lambda s: s != "policy", kind="stable")
        ends = [c for c in summary.columns if c.startswith("end_")]
        cols = [c for c in ("label", "level", "seat", "policy", "games", "deals", "win_rate", "win_lo", "win_hi",
                            "seating_spread", "score_mean", "score_sd", *ends) if c in summary.columns]
        parts.append("<h2>Summary</h2>")
        parts.append(summary[cols].head(200).to_html(index=False, float_format=lambda x: f"{x:.4g}"))
    parts.append("<h2 id='provenance'>Provenance</h2><ul>")
    for k, v in provenance.items():
        parts.append(f"<li><b>{esc(str(k))}</b>: {esc(str(v))}</li>")
    parts.append("</ul>")
    parts.append("</body></html>")
    path = Path(out_dir) / "index.html"
    safe_io.write_text(path, "\n".join(parts))  # atomic; a non-UTF-8 file name shows as escapes
    return path
