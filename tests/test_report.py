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
    assert ax.get_title().startswith("T") and "win rate" in ax.get_ylabel() and ax.get_xlabel()
    plots.save(fig, tmp_path / "w.png")
    assert (tmp_path / "w.png").stat().st_size > 1000
