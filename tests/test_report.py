import pandas as pd
from matplotlib import pyplot as plt

from boardsim.report import plots

SUMMARY = pd.DataFrame({
    "cell": [0, 0, 1, 1], "label": ["a", "a", "b", "b"], "seat": [0, 1, 0, 1],
    "policy": ["par", "random"] * 2, "games": [100] * 4, "win_rate": [0.6, 0.4, 0.5, 0.5],
    "win_lo": [0.5, 0.3, 0.4, 0.4], "win_hi": [0.7, 0.5, 0.6, 0.6],
})


def test_winrate_data_error_bars():
    d = plots.winrate_data(SUMMARY)
    assert list(d["err_lo"].round(9)) == [0.1] * 4 and list(d["err_hi"].round(9)) == [0.1] * 4


def test_score_data_shares_sum_to_one():
    scores = pd.DataFrame({"cell": [0, 0, 0, 0], "label": ["a"] * 4, "seat": [0, 0, 1, 1],
                           "policy": ["p"] * 4, "score": [1, 2, 1, 5], "count": [3, 1, 2, 2]})
    d = plots.score_data(scores)
    assert d.groupby("seat")["share"].sum().round(9).tolist() == [1.0, 1.0]
    assert d["share"].tolist() == [0.75, 0.25, 0.5, 0.5]


def test_plots_have_titles_and_labels(tmp_path):
    fig, ax = plt.subplots()
    plots.plot_winrate(ax, plots.winrate_data(SUMMARY), "T")
    assert fig.get_suptitle().startswith("T") and "win rate" in ax.get_ylabel() and ax.get_xlabel()
    plots.save(fig, tmp_path / "w.png")
    assert (tmp_path / "w.png").stat().st_size > 1000


# -- every chart type, drawn from small synthetic tables, with the layout checked ----------------

import json  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from boardsim.report import answer  # noqa: E402
from boardsim.report.build import build_report  # noqa: E402


def policy_summary(cells=2, players=(4, 4)):
    rows = []
    for c in range(cells):
        p = players[c]
        for k, (name, rate) in enumerate([("eligibility", 0.548), ("blocker", 0.278), ("par", 0.1)][:p]):
            rows.append({"game": "art_deco", "cell": c, "label": f"players={p}; seat 0 order=3, 4, 7", "players": p,
                         "level": "policy", "seat": None, "policy": name, "seats": 1, "games": 1000, "deals": 500,
                         "win_rate": rate, "win_lo": rate - 0.005, "win_hi": rate + 0.004, "arrangements": 24,
                         "seating_spread": 0.002, "end_rounds": 0.999 if k == 0 else 0.999,
                         "end_round_cap": 0.0})
    return pd.DataFrame(rows)


def test_answer_names_each_cells_winner_with_interval_and_fair_share():
    s = policy_summary(2, (4, 3))
    sentences = answer.sweep_answer(s)
    assert len(sentences) == 2
    assert sentences[0].startswith("players=4; seat 0 order=3, 4, 7: eligibility wins 54.8% [54.3, 55.2] of "
                                   "4-player games (fair share 25%), ahead of blocker 27.8% [27.3, 28.2]")
    assert "(fair share 33.3%)" in sentences[1]


def test_caveats_shown_only_when_they_apply():
    s = policy_summary(1, (4,))
    assert answer.caveats(s, lambda name: pd.DataFrame()) == []
    s.loc[0, "seating_spread"] = 0.05  # wider than the 0.9-point interval
    s["end_round_cap"] = 0.002
    goals = pd.DataFrame({"name": ["Badlands", "Gold Rush"], "source": ["known", "synthetic"]})
    tables = {"balance_goals.csv": goals.assign(leader_win_rate=0.6)}
    notes = answer.caveats(s, lambda name: tables.get(name, pd.DataFrame()))
    text = " ".join(notes)
    assert "seating spread" not in text or "eligibility" in text
    assert "eligibility" in notes[0] and "5.0 points" in notes[0]
    assert "round cap" in notes[1] and "0.2%" in notes[1]
    assert "Synthetic" in notes[2] and "Gold Rush" in notes[2] and "Badlands" not in notes[2]
    assert "Correlational" in notes[3] and "goal-leader" in notes[3]


def test_index_opens_with_answer_and_ends_with_provenance(tmp_path):
    policy_summary(2, (4, 2)).to_csv(tmp_path / "summary.csv", index=False)
    (tmp_path / "run.json").write_text(json.dumps({
        "title": "T", "provenance": {"seed": 1, "game": "art_deco"},
        "warnings": ["seats[2] (random) never plays: 3 seats listed for 2 players"]}))
    build_report(tmp_path)
    html = (tmp_path / "index.html").read_text()
    start = html.index("<section id='answer'>")
    assert start < html.index("<img") < html.index("id='provenance'")
    assert "eligibility wins 54.8% [54.3, 55.2] of 4-player games (fair share 25%)" in html
    assert "(fair share 50%)" in html and "never plays" in html[start:html.index("</section>")]


def test_flat_axes_are_readable(tmp_path, monkeypatch):
    """A game that always lasts 10 rounds is one bar at 10 with room around it; an all-zero rate is not scaled
    to 1e-5."""
    figures = []
    monkeypatch.setattr(plots, "save", lambda fig, path: figures.append(fig))
    rounds = pd.DataFrame({"cell": [0, 1], "label": ["a", "b"], "rounds": [10, 10], "count": [50, 60]})
    plots.write_rounds(rounds, tmp_path, "T")
    ax = figures[-1].axes[0]
    lo, hi = ax.get_xlim()
    assert lo <= 9 and hi >= 11 and all(float(t).is_integer() for t in ax.get_xticks())
    table = pd.DataFrame({"cell": 0, "seat": [0, 1], "policy": ["a", "b"], "skip_games_rate": [0.0, 0.0],
                          "skip_games_lo": [0.0, 0.0], "skip_games_hi": [0.0, 0.0]})
    plots.write_balance("skips", table, tmp_path, "T")
    lo, hi = figures[-1].axes[0].get_xlim()
    assert lo == 0.0 and hi >= 0.05


def test_zero_copy_cards_left_out_and_panels_per_cell(tmp_path, monkeypatch):
    figures = []
    monkeypatch.setattr(plots, "save", lambda fig, path: figures.append(fig))
    cards = pd.DataFrame({"cell": np.repeat(range(5), 3), "label": np.repeat(list("abcde"), 3),
                          "card": ["Axolotl", "Bear", "Tiger"] * 5, "copies": [0, 2, 1] * 5,
                          "hire_rate": [0.0, 0.3, 0.2] * 5, "hire_lo": [0.0, 0.25, 0.1] * 5,
                          "hire_hi": [0.0, 0.35, 0.3] * 5})
    plots.write_balance("cards", cards, tmp_path, "T", {c: 2 for c in range(5)})
    fig = figures[-1]
    assert len(fig.axes) == 5  # every cell, not only the first
    rows = {round(ax.get_position().y0, 3) for ax in fig.axes}
    assert len(rows) == 2  # at most 4 panels per row
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["Tiger", "Bear"]


def test_card_sweep_is_a_dose_response_in_value_order(tmp_path, monkeypatch):
    figures = []
    monkeypatch.setattr(plots, "save", lambda fig, path: figures.append(fig))
    sweep = pd.DataFrame({"card": "Elephant", "players": 2, "field": "fame", "value": [7, 5, 6],
                          "effect": [0.03, -0.02, 0.01], "effect_lo": [0.02, -0.03, 0.0],
                          "effect_hi": [0.04, -0.01, 0.02]})
    [(name, caption)] = plots.write_balance("card_sweep", sweep, tmp_path, "T")
    ax = figures[-1].axes[0]
    line = next(ln for ln in ax.get_lines() if ln.get_label() == "Elephant")
    assert list(line.get_xdata()) == [5, 6, 7] and list(line.get_ydata()) == [-0.02, 0.01, 0.03]
    assert any(list(ln.get_ydata()) == [0.0, 0.0] for ln in ax.get_lines())  # zero marked
    assert "zero" in caption


def test_heatmap_is_centred_on_the_fair_share_with_readable_text(tmp_path, monkeypatch):
    figures = []
    monkeypatch.setattr(plots, "save", lambda fig, path: figures.append(fig))
    pair = pd.DataFrame({"policy": ["a", "b"], "opponent": ["b", "a"], "games": 100, "win_rate": [0.97, 0.03],
                         "win_lo": [0.95, 0.01], "win_hi": [0.99, 0.05]})
    _, caption = plots.write_heatmap(pair, tmp_path, "T", players=4)
    ax = figures[-1].axes[0]
    norm = ax.images[0].norm
    assert norm(0.5) == pytest.approx(0.5) and "4 players" in caption and "3-4 players" in caption
    colours = {t.get_text().split("\n")[0]: t.get_color() for t in ax.texts}
    assert colours["0.97"] == "white" and colours["0.03"] == "white"  # both ends of the map are dark


CHARTS = {
    "summary.csv": policy_summary(5, (2, 3, 4, 2, 3)),
    "scores.csv": pd.DataFrame({"cell": np.repeat(range(5), 4), "label": "players=2; long grid value",
                                "seat": [0, 0, 1, 1] * 5, "policy": "priority(order=Elephant, Bear, Tiger, Lion)",
                                "score": [3, 4, 3, 5] * 5, "count": [5, 6, 7, 8] * 5}),
    "positions.csv": pd.DataFrame({"cell": [0, 0], "label": "all", "players": 2, "position": [0, 1], "games": 100,
                                   "wins": [60, 40], "win_rate": [0.6, 0.4], "win_lo": [0.5, 0.3],
                                   "win_hi": [0.7, 0.5]}),
    "rounds.csv": pd.DataFrame({"cell": [0, 1], "label": ["a", "b"], "rounds": [10, 10], "count": [5, 6]}),
    "tournament_pairwise.csv": pd.DataFrame({"policy": ["a", "b"], "opponent": ["b", "a"], "games": 100,
                                             "win_rate": [0.6, 0.4], "win_lo": [0.5, 0.3], "win_hi": [0.7, 0.5]}),
    "tournament_ratings.csv": pd.DataFrame({"policy": ["a", "b"], "rating": [0.2, -0.2], "rating_lo": [0.1, -0.3],
                                            "rating_hi": [0.3, -0.1]}),
    "optimize_history.csv": pd.DataFrame({"generation": [0, 1, 2], "best_win_rate": [0.3, 0.35, 0.36]}),
    "optimize_check.csv": pd.DataFrame({"which": ["start", "best", "best - start"], "params": ["x", "y", "p"],
                                        "win_rate": [0.3, 0.35, 0.05], "win_lo": [0.29, 0.34, 0.04],
                                        "win_hi": [0.31, 0.36, 0.06]}),
    "balance_fame_curve.csv": pd.DataFrame({"cell": np.repeat(range(5), 4), "label": "c", "seat": [0, 0, 1, 1] * 5,
                                            "policy": "p", "round": [1, 2] * 10, "games": 100,
                                            "mean_fame": [1.0, 2.0] * 10}),
    "balance_card_strength.csv": pd.DataFrame({"players": [2, 2, 3, 3], "card": ["Bear", "Tiger"] * 2,
                                               "rank": [1, 2] * 2, "effect": [0.02, -0.01] * 2,
                                               "effect_lo": [0.01, -0.02] * 2, "effect_hi": [0.03, 0.0] * 2,
                                               "flag": ["strong", ""] * 2}),
    "balance_card_sweep.csv": pd.DataFrame({"card": "Bear", "players": [2, 2, 3, 3], "field": "fame",
                                            "value": [4, 5] * 2, "effect": [0.01, 0.02] * 2,
                                            "effect_lo": [0.0, 0.01] * 2, "effect_hi": [0.02, 0.03] * 2}),
    "card_suggestions.csv": pd.DataFrame({"current": [5], "card": ["Bear"], "field": ["fame"], "suggested": [4],
                                          "worst_abs_effect": [0.01], "fair_everywhere": [True],
                                          "effect_at_2p": [0.01], "effect_at_3p": [0.005]}),
}


def test_every_generic_chart_keeps_text_inside_and_legends_off_the_data(tmp_path, layout_checked):
    for name, frame in CHARTS.items():
        frame.to_csv(tmp_path / name, index=False)
    (tmp_path / "run.json").write_text(json.dumps({"title": "A long scenario title " * 5, "provenance": {}}))
    files = build_report(tmp_path)
    drawn = layout_checked
    names = {p.split("/")[-1] for p in drawn}
    assert {"winrate.png", "scores.png", "positions.png", "rounds.png", "heatmap.png", "ratings.png",
            "convergence.png", "fame_curves.png", "balance_card_strength_effect.png",
            "balance_card_sweep_effect.png"} <= names
    assert names <= set(files)
    html = (tmp_path / "index.html").read_text()
    assert "a rates highest" in html and "Bear is the strongest card" in html and "The best parameters" in html
    # the sweep's suggestion is in the answer, in game terms, with each count's predicted strength
    assert "Suggestion for Bear: fame 5 -&gt; 4, fair" in html and "3p +0.5" in html


def test_layout_check_catches_a_legend_over_data(layout_check):
    fig, ax = plt.subplots(layout="constrained")
    ax.plot([0, 1], [0, 1], "o", label="x")
    ax.plot([0.95], [0.95], "o", label="y")
    ax.legend(loc="upper right")
    with pytest.raises(AssertionError, match="legend covers"):
        layout_check(fig)
    plt.close(fig)


def test_one_card_at_three_counts_has_each_row_labelled_with_its_count(tmp_path):
    """``cards --cards Cat --players 2,3,4``: one row per count on one panel, each named for its count, and the
    chart's axis says what strength is measured against."""
    table = pd.DataFrame({"base": "fame_per_cost", "players": [2, 3, 4], "card": "Cat", "rank": 1,
                          "effect": [0.01, 0.02, 0.03], "effect_lo": [0.0, 0.01, 0.02],
                          "effect_hi": [0.02, 0.03, 0.04]})
    [(label, _, rows)] = plots.balance_panels(table, "effect", "effect_lo", "effect_hi")
    assert sorted(rows["name"]) == ["Cat, 2 players", "Cat, 3 players", "Cat, 4 players"]
    [(fname, caption)] = plots.write_balance("card_strength", table, tmp_path, "FlipToons: card strength")
    assert (tmp_path / fname).exists() and "minus the average card" in caption
