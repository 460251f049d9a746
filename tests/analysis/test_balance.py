import numpy as np
import pandas as pd

from boardsim.analysis.balance import Arm, flag_outliers, paired_effect, zero_crossing
from boardsim.games import get
from boardsim.games.base import Seat

GAME = get("art_deco")


def test_card_removed_in_both_arms_has_exactly_zero_effect():
    cards = GAME.card_table({"v12": {"copies": 0}})
    seats = [Seat("eligibility"), Seat("par"), Seat("blocker")]
    r = paired_effect(GAME, 3, Arm(seats, cards), Arm(seats, cards.copy()), seat=0, games=3000, seed=4)
    assert r["effect"] == 0.0 and r["effect_lo"] == 0.0 and r["effect_hi"] == 0.0
    assert r["games"] == 3000 and 0 < r["win_a"] == r["win_b"]


def test_paired_effect_detects_a_worse_policy_with_few_games():
    cards = GAME.card_table()
    field = [Seat("eligibility")] * 2
    good = Arm([Seat("eligibility")] + field, cards)
    bad = Arm([Seat("eligibility", {"hard": 0.3})] + field, cards)
    r = paired_effect(GAME, 3, good, bad, seat=0, games=1500, seed=1)
    assert r["effect_lo"] > 0 and np.isclose(r["effect"], r["win_a"] - r["win_b"])


def test_zero_crossing_and_flags():
    assert zero_crossing([5, 6, 7, 8], [-0.02, -0.01, 0.01, 0.03]) == 6.5
    assert zero_crossing([1, 2], [0.1, 0.2]) is None
    assert zero_crossing([3, 1, 2], [0.2, -0.2, 0.0]) == 2.0
    t = pd.DataFrame({"effect": [0.0, 0.1, -0.1, 0.01], "effect_lo": [-0.01, 0.05, -0.2, -0.02],
                      "effect_hi": [0.01, 0.2, -0.05, 0.03]})
    assert list(flag_outliers(t)["flag"]) == ["", "strong", "weak", ""]


def test_cards_command_ranks_flags_and_sweeps(tmp_path, capsys):
    from boardsim import cli

    out = tmp_path / "cards"
    code = cli.main(["cards", "fliptoons", "--cards", "Elephant,Ostrich,Bear", "--games", "300", "--sweep", "fame",
                     "--span", "1", "--out", str(out)])
    assert code == 0
    strength = pd.read_csv(out / "balance_card_strength.csv", keep_default_na=False)
    assert list(strength["rank"]) == [1, 2, 3] and strength["effect"].is_monotonic_decreasing
    assert set(strength["flag"]) <= {"", "strong", "weak"}
    sweep = pd.read_csv(out / "balance_card_sweep.csv")
    elephant = sweep[sweep["card"] == "Elephant"]
    assert len(elephant) == 3 and (elephant["effect_lo"] <= elephant["effect_hi"]).all()
    suggestions = pd.read_csv(out / "card_suggestions.csv")
    assert set(suggestions["card"]) == {"Elephant", "Ostrich", "Bear"}
    assert (out / "index.html").exists() and (out / "balance_card_strength_effect.png").exists()
    capsys.readouterr()
    assert cli.main(["cards", "fliptoons", "--cards", "Elefant"]) == 2
    assert "unknown card 'Elefant'" in capsys.readouterr().err
    assert cli.main(["cards", "art_deco"]) == 2
    assert "no policy that favours a card" in capsys.readouterr().err
