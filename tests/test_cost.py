"""Costs shown up front (boardsim.cost): the calibration, the printed estimate, the bar."""

from __future__ import annotations

import math

import pytest

from boardsim import cost
from boardsim.games import get


def test_seconds_per_game_is_a_positive_figure_from_a_timed_batch(monkeypatch):
    monkeypatch.setattr(cost, "CALIBRATE_SECONDS", 0.01)
    t = cost.seconds_per_game(get("art_deco"), 2, ["par", "random"])
    assert 0 < t < 1 and math.isfinite(t)


@pytest.mark.parametrize("seconds,text", [(0.2, "under a second"), (42, "about 42 s"), (600, "about 10 min"),
                                          (9000, "about 2.5 h")])
def test_durations_read_as_people_say_them(seconds, text):
    assert cost.duration(seconds) == text


def test_the_estimate_is_one_line_on_stderr(capsys):
    cost.announce(120.0, 3.0, "Art Deco ladder")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("Art Deco ladder: estimated time about 2 min")


def test_a_bar_counts_games_and_a_hidden_one_draws_nothing(capsys):
    with cost.Bar(False, 10) as bar:
        bar.update(5)
    assert capsys.readouterr().err == ""
