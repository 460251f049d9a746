"""A balance patch's report: the answer, each card's effect before and after on the fresh deals, and the
objective over the search."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from boardsim.report import plots
from boardsim.report.plots import FAIR_STYLE, TITLE_SIZE, heading, new_figure, panel_title, short_text
from boardsim.report.tables import FIRST, TARGET_KINDS
from boardsim.stats.feel import parse_target
from boardsim.stats.metagame import TARGET_METRICS as META_METRICS

COLOURS = {"today": "tab:grey", "patched": "tab:blue"}


def _iv(lo: float, hi: float) -> str:
    return f"[{lo:.3f}, {hi:.3f}]"


def _counts(players: Sequence[int]) -> str:
    ns = sorted({int(n) for n in players})
    if len(ns) > 1 and ns == list(range(ns[0], ns[-1] + 1)):
        return f"{ns[0]}–{ns[-1]} players"
    return f"{', '.join(str(n) for n in ns)} player{'s' if ns != [1] else ''}"


def patch_answer(objective: pd.DataFrame, limits: Sequence[str] = (), verification: pd.DataFrame | None = None
                 ) -> list[str]:
    """The answer first: the edits, the objective before and after on fresh deals with intervals, the flagged
    counts, whether the verification confirms it, for each skill level when there are several, and what
    limited the search."""
    if objective.empty or not {"table", "objective"} <= set(objective.columns):
        return []
    base_col = objective["base"] if "base" in objective.columns else pd.Series("all", index=objective.index)
    whole = objective[base_col.astype(str) == "all"]
    by = {r["table"]: r for _, r in whole.iterrows()}
    if "today" not in by or "patched" not in by:
        return []
    before, after = by["today"], by["patched"]
    patch = str(after["patch"])
    edits = 0 if patch == "today's table" else patch.count("->")
    where = _counts(verification["players"]) if verification is not None and "players" in verification else ""
    cards = not pd.isna(after.get("worst_card_effect", np.nan))
    parts = [name for col, name in (("worst_card_effect", "card strength"),
                                    ("worst_first_player", "first-player rate - fair share"),
                                    ("worst_target_shortfall", "shortfall from a target"))
             if not pd.isna(after.get(col, np.nan))]
    what = f"worst |{parts[0]}|" if len(parts) == 1 else f"objective (worst |{' or '.join(parts)}|)"
    flagged = (f"; flagged cards {int(before['flagged_cards'])} → {int(after['flagged_cards'])}" if cards else
               f"; flagged tests {int(before['flagged'])} → {int(after['flagged'])}")
    if edits == 0:
        out = [f"No edit: the search found no patch within the span that lowers the {what} on its deals. Today's "
               f"{what} is {before['objective']:.3f} {_iv(before['objective_lo'], before['objective_hi'])}"
               f"{' at ' + where if where else ''} on fresh deals" + (
                   f", with {int(before['flagged_cards'])} cards flagged" if cards else "") + "."]
    else:
        out = [f"{edits} edit{'s' if edits != 1 else ''}: {patch.replace('->', '→')}. The {what} falls from "
               f"{before['objective']:.3f} {_iv(before['objective_lo'], before['objective_hi'])} to "
               f"{after['objective']:.3f} {_iv(after['objective_lo'], after['objective_hi'])}"
               f"{' at ' + where if where else ''}{flagged}, on fresh deals the search never saw."]
        if bool(after.get("confirmed", False)):
            out.append("The verification confirms the improvement: the patched table's 95% simultaneous interval "
                       "lies wholly below today's.")
        else:
            out.append("The verification does not confirm an improvement: the two 95% simultaneous intervals "
                       "overlap, so the patch may be no better than today's table.")
    levels = objective[base_col.astype(str) != "all"]
    if len(levels):
        held = []
        for b, part in levels.groupby("base", sort=False):
            r = {t: row for t, row in zip(part["table"], part.to_dict("records"), strict=True)}
            if "today" in r and "patched" in r:
                ok = "holds" if r["patched"]["confirmed"] else "is not confirmed"
                count = (f"; flagged cards {int(r['today']['flagged_cards'])} → {int(r['patched']['flagged_cards'])}"
                         if cards else "")
                held.append(f"under {b} it {ok} ({r['today']['objective']:.3f} → {r['patched']['objective']:.3f}"
                            f"{count})")
        out.append("For each skill level: " + "; ".join(held) + ".")
    out += _feel_sentences(verification)
    if limits:
        out.append("What limited the search: " + " ".join(limits))
    return out


def kinds(v: pd.DataFrame) -> pd.Series:
    """Each verification row's test kind (card, first_player, feel); a folder from before feel targets has no
    ``kind`` column, and its rows are cards or the first player."""
    if "kind" in v.columns:
        return v["kind"].astype(str)
    return pd.Series(np.where(v["card"].astype(str) == FIRST, "first_player", "card"), index=v.index)


def _feel_sentences(verification: pd.DataFrame | None) -> list[str]:
    """Each feel target's figure on the fresh deals, today and patched, per base and player count."""
    if verification is None or verification.empty:
        return []
    v = verification[kinds(verification).isin(TARGET_KINDS)]
    out = []
    for (target, base, n), part in v.groupby(["card", "base", "players"], sort=False):
        r = {row["table"]: row for row in part.to_dict("records")}
        if "today" not in r or "patched" not in r:
            continue
        met = "met" if r["patched"]["flag"] == "" or pd.isna(r["patched"]["flag"]) else "measurably missed"
        meta = "meta" in set(part.get("kind", []))
        who = f"{'Metagame' if meta else 'Feel'} target {target} at {int(n)} players {'among' if meta else 'under'}"
        out.append(f"{who} {base}: {_feel_fig(r['today'])} today, "
                   f"{_feel_fig(r['patched'])} patched ({met} on fresh deals).")
    return out


def _feel_fig(row: dict) -> str:
    return f"{row['feel']:.3g} {_iv(row['feel_lo'], row['feel_hi'])}"


def write_effects(verification: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """One panel per (base, player count): each card's effect on the fresh deals, today (grey) and patched
    (blue), with 95% intervals and the zero line (a fair card); cards in order of today's effect."""
    # targets' figures have units of their own: write_feel draws them
    v = verification[~kinds(verification).isin(TARGET_KINDS)].copy()
    v["card"] = v["card"].astype(str)
    keys = list(dict.fromkeys(zip(v["base"].astype(str), v["players"].astype(int), strict=True)))
    today = v[v["table"] == "today"]
    names = list(dict.fromkeys(today.sort_values("effect", kind="stable")["card"]))
    n = len(keys)
    cols = min(n, 3)
    rows = -(-n // cols)
    fig = new_figure(4.2 * cols + 1.5, 0.28 * len(names) * rows + 2.2 * rows)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    y = np.arange(len(names))
    span = float(np.nanmax(np.abs(v[["effect_lo", "effect_hi"]].to_numpy(float)))) if len(v) else 0.1
    for i, (ax, (base, players)) in enumerate(zip(axes, keys, strict=False)):
        part = v[(v["base"].astype(str) == base) & (v["players"] == players)]
        for k, (table, shift) in enumerate((("today", 0.17), ("patched", -0.17))):
            t = part[part["table"] == table].set_index("card").reindex(names)
            e = t["effect"].to_numpy(float)
            ax.errorbar(e, y + shift, xerr=[np.clip(e - t["effect_lo"], 0, None), np.clip(t["effect_hi"] - e, 0, None)],
                        fmt="o" if k == 0 else "s", ms=3.5, capsize=2, color=COLOURS[table],
                        label=table if i == 0 else None)
        ax.axvline(0.0, **FAIR_STYLE, label="no effect (fair)" if i == 0 else None)
        ax.set_yticks(y)
        ax.set_yticklabels([short_text(c, 20) for c in names] if i % cols == 0 else [], fontsize=7)
        ax.set_ylim(-0.7, len(names) - 0.3)
        ax.set_xlim(-span * 1.08, span * 1.08)
        ax.set_xlabel("effect: win share - fair share")
        ax.grid(axis="x", alpha=0.3)
        panel_title(ax, f"{players} players" + (f", base {short_text(base, 30)}" if len(set(b for b, _ in keys)) > 1
                                                 else ""))
    for ax in axes[n:]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), fontsize=8)  # below: clear of titles
    what = "each card's effect" if (v["card"] != FIRST).any() else "the first player's edge"
    fig.suptitle(heading(title, f"{what} on fresh deals, today and patched (95% intervals)"),
                 fontsize=TITLE_SIZE)
    plots.save(fig, out_dir / "patch_effects.png")
    return "patch_effects.png", (
        "Each test's effect on the verification deals, which the search never used: grey today's table, blue "
        "the patched one, with 95% intervals; the dashed line is a fair card (or first player). Cards are in "
        "order of today's effect, weakest at the bottom.")


def write_search(history: pd.DataFrame, candidates: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """The objective over the search: every candidate's score at each rung of its race (dots, by round), and
    the accepted patch after each step (line)."""
    fig = new_figure(8, 4.2)
    ax = fig.subplots()
    if not candidates.empty:
        full = candidates[candidates["share_of_search_deals"] >= 1.0]
        part = candidates[candidates["share_of_search_deals"] < 1.0]
        ax.scatter(part["round"], part["objective"], s=10, color="tab:grey", alpha=0.5,
                   label="candidate, dropped early on part of the deals")
        ax.scatter(full["round"], full["objective"], s=14, color="tab:orange", alpha=0.8,
                   label="candidate scored on all the search deals")
    ax.plot(history["round"], history["objective"], "-o", color="tab:blue", label="accepted patch")
    for r, o, e in zip(history["round"], history["objective"], history["edits"], strict=True):
        ax.annotate(f"{int(e)} edit{'s' if e != 1 else ''}", (r, o), textcoords="offset points", xytext=(4, 6),
                    fontsize=7)
    ax.axhline(0.0, **FAIR_STYLE, label="0: every test fair")
    ax.set_xlabel("search round (0 = today's table)")
    ax.set_ylabel("objective on the search deals (worst |effect|)")
    ax.xaxis.set_major_locator(plots.MaxNLocator(integer=True))
    top = max(float(history["objective"].max()), float(candidates["objective"].max()) if len(candidates) else 0)
    ax.set_ylim(0.0, top * 1.15 + 1e-3)
    ax.grid(alpha=0.3)
    plots.legend_outside(ax)
    fig.suptitle(heading(title, "the objective over the search (common deals; lower is fairer)"),
                 fontsize=TITLE_SIZE)
    plots.save(fig, out_dir / "patch_search.png")
    return "patch_search.png", (
        "The search: each round's candidates scored on the same deals (grey: dropped by successive halving "
        "after a part of the deals; orange: scored on all of them) and the accepted patch after each round "
        "(blue line, with its number of edits). The last column, after the final round, is the patch with each "
        "edit removed in turn: an edit whose removal is no worse is dropped. These scores are on the search "
        "deals, so they are optimistic; the verdict is the fresh-deal comparison.")


def write_feel(verification: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """One panel per feel target: its figure on the fresh deals at each (base, player count), today (grey) and
    patched (blue), with 95% intervals and the target as a dashed line."""
    v = verification[kinds(verification).isin(TARGET_KINDS)]
    targets = list(dict.fromkeys(v["card"].astype(str)))
    fig = new_figure(4.6 * len(targets) + 1.0, 3.6)
    axes = np.atleast_1d(fig.subplots(1, len(targets), squeeze=False)).ravel()
    for i, (ax, target) in enumerate(zip(axes, targets, strict=True)):
        part = v[v["card"].astype(str) == target]
        keys = list(dict.fromkeys(zip(part["base"].astype(str), part["players"].astype(int), strict=True)))
        x = np.arange(len(keys))
        for k, (table, shift) in enumerate((("today", -0.12), ("patched", 0.12))):
            t = part[part["table"] == table].set_index(["base", "players"]).reindex(keys)
            f = t["feel"].to_numpy(float)
            ax.errorbar(x + shift, f, yerr=[np.clip(f - t["feel_lo"], 0, None), np.clip(t["feel_hi"] - f, 0, None)],
                        fmt="o" if k == 0 else "s", ms=4, capsize=3, color=COLOURS[table],
                        label=table if i == 0 else None)
        goal = parse_target(target, META_METRICS)
        ax.axhline(goal.value, **FAIR_STYLE, label="target" if i == 0 else None)
        ax.set_xticks(x)
        ax.set_xticklabels([f"{n}p" + (f"\n{short_text(b, 18)}" if len({b for b, _ in keys}) > 1 else "")
                            for b, n in keys], fontsize=8)
        ax.set_xlim(-0.6, len(keys) - 0.4)
        ax.set_xlabel("player count")
        ax.set_ylabel(goal.metric.replace("_", " "))
        ax.grid(axis="y", alpha=0.3)
        panel_title(ax, f"target {target}")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), fontsize=8)
    fig.suptitle(heading(title, "targets on fresh deals, today and patched (95% intervals)"), fontsize=TITLE_SIZE)
    plots.save(fig, out_dir / "patch_feel.png")
    return "patch_feel.png", (
        "Each target's figure (feel: in self-play; metagame: of the head-to-head table) on the verification "
        "deals, which the search never used: grey "
        "today's table, blue the patched one, with 95% intervals; the dashed line is the target.")
