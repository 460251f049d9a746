"""The Art Deco report: the overbid chart is drawn and captioned with the score identity."""

import html
import re

import numpy as np
import pandas as pd
from matplotlib import image

from boardsim.games.art_deco.balance import IDENTITY
from boardsim.report.build import build_report
from boardsim.scenario import parse
from boardsim.sweeps import sweep

CHART = "balance_overbid_overbid_per_game.png"


def figures(page: str) -> dict[str, str]:
    """img src -> figcaption text, for every figure of an index.html."""
    found = re.findall(r"<figure><img src='([^']+)'[^>]*><figcaption>(.*?)</figcaption></figure>", page, re.S)
    return {src: html.unescape(cap) for src, cap in found}


def test_index_shows_the_overbid_chart_with_the_identity_caption(tmp_path):
    sc = parse({"name": "t-ad", "title": "Art Deco overbid", "game": "art_deco", "games": 400, "seed": 3,
                "seats": [{"policy": "eligibility"}, {"policy": "multiple", "params": {"multiple": 1.3}},
                          {"policy": "blocker"}],
                "grid": {"players": [2, 3]}})
    out = tmp_path / "ad"
    assert sweep(sc, out=out, progress=False).complete
    table = pd.read_csv(out / "balance_overbid.csv")
    assert len(table) == 2 + 3
    # the table shows the identity too: mean score = mean dealt value - overbid per game (default factors)
    assert np.allclose(table["score_mean"], table["dealt_value_mean"] - table["overbid_per_game"])
    assert (table["overbid_per_game_lo"] <= table["overbid_per_game"]).all()
    assert (table["overbid_per_game"] <= table["overbid_per_game_hi"]).all()
    assert (table["overbid_per_game"] > 0).any()

    pixels = image.imread(out / CHART)
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100 and pixels.std() > 0
    caps = figures((out / "index.html").read_text(encoding="utf-8"))
    assert CHART in caps
    assert IDENTITY in caps[CHART]
    assert "final score = dealt value − overbid" in caps[CHART]
    assert "direct_price_factor ≠ 1 and sale_price_factor ≠ 1" in caps[CHART]
    assert sum(IDENTITY in c for c in caps.values()) == 1  # only next to the overbid chart

    # redrawing the folder from its CSVs (python -m boardsim report) keeps chart and caption
    (out / CHART).unlink()
    build_report(out)
    assert (out / CHART).exists()
    assert IDENTITY in figures((out / "index.html").read_text(encoding="utf-8"))[CHART]
