import numpy as np
import pandas as pd

from boardsim.analysis.balance import Arm, flag_effects, holm, paired_effect
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


def test_holm_adjustment_and_flags_against_zero():
    # Holm: sorted p times (m - k + 1), made non-decreasing, capped at 1
    assert np.allclose(holm([0.01, 0.04, 0.03, 0.5]), [0.04, 0.09, 0.09, 0.5])
    t = pd.DataFrame({"effect": [0.0, 0.1, -0.1, 0.01], "p_value": [0.9, 0.001, 0.002, 0.03]})
    flagged = flag_effects(t)
    # 0.03 * 2 = 0.06 after correction: not flagged, although its own interval may exclude zero
    assert list(flagged["flag"]) == ["", "strong", "weak", ""]
    assert (flagged["correction"] == "holm over 4 tests").all()


def test_paired_effect_reports_a_p_value_that_matches_its_interval():
    cards = GAME.card_table()
    field = [Seat("eligibility")] * 2
    r = paired_effect(GAME, 3, Arm([Seat("eligibility")] + field, cards),
                      Arm([Seat("eligibility", {"hard": 0.3})] + field, cards), seat=0, games=1500, seed=1)
    assert (r["p_value"] < 0.05) == (r["effect_lo"] > 0 or r["effect_hi"] < 0)
    assert r["win_a_lo"] <= r["win_a"] <= r["win_a_hi"]


def test_cards_command_ranks_flags_and_sweeps(tmp_path, capsys):
    from boardsim import cli

    out = tmp_path / "cards"
    code = cli.main(["cards", "fliptoons", "--cards", "Elephant,Ostrich,Bear", "--games", "300", "--sweep", "fame",
                     "--span", "1", "--out", str(out)])
    assert code == 0
    strength = pd.read_csv(out / "balance_card_strength.csv", keep_default_na=False)
    assert list(strength["rank"]) == [1, 2, 3] and strength["effect"].is_monotonic_decreasing
    assert set(strength["flag"]) <= {"", "strong", "weak"}
    assert (strength["p_holm"] >= strength["p_value"]).all() and (strength["players"] == 2).all()
    sweep = pd.read_csv(out / "balance_card_sweep.csv")
    elephant = sweep[sweep["card"] == "Elephant"]
    assert len(elephant) == 3 and (elephant["effect_lo"] <= elephant["effect_hi"]).all()
    suggestions = pd.read_csv(out / "card_suggestions.csv")
    assert set(suggestions["card"]) == {"Elephant", "Ostrich", "Bear"}
    # suggestions are whole values of the field, one of those swept
    for row in suggestions.itertuples():
        assert row.suggested == int(row.suggested) and abs(row.suggested - row.current) <= 1
    assert (out / "index.html").exists() and (out / "balance_card_strength_effect.png").exists()
    capsys.readouterr()
    assert cli.main(["cards", "fliptoons", "--cards", "Elefant"]) == 2
    assert "unknown card 'Elefant'" in capsys.readouterr().err
    assert cli.main(["cards", "art_deco"]) == 2
    assert "no policy that favours a card" in capsys.readouterr().err


def test_card_flags_do_not_depend_on_which_other_cards_are_tested():
    from boardsim.analysis.balance import card_strength

    ft = get("fliptoons")
    table = ft.card_table()
    base = Seat("fame_per_cost")
    every = ["Elephant", "Ostrich", "Bear", "Tiger", "Turkey"]
    full = card_strength(ft, 2, base, ft.favour, every, table, 400, 9).set_index("card")
    part = card_strength(ft, 2, base, ft.favour, ["Bear", "Elephant"], table, 400, 9).set_index("card")
    for card in part.index:
        # each card's own measurement is the same deals and the same numbers
        assert part.loc[card, "effect"] == full.loc[card, "effect"]
        assert part.loc[card, "p_value"] == full.loc[card, "p_value"]
        # only the family shrinks: Holm's adjustment can only fall, so a flag can only appear
        assert part.loc[card, "p_holm"] <= full.loc[card, "p_holm"]
        if full.loc[card, "flag"]:
            assert part.loc[card, "flag"] == full.loc[card, "flag"]
    assert (full["correction"] == "holm over 5 tests").all() and (part["correction"] == "holm over 2 tests").all()


def test_cards_command_measures_every_player_count_and_suggests_a_whole_value(tmp_path):
    from boardsim import cli

    out = tmp_path / "cards"
    assert cli.main(["cards", "fliptoons", "--players", "2,3", "--cards", "Elephant", "--games", "120",
                     "--sweep", "fame", "--span", "1", "--out", str(out)]) == 0
    strength = pd.read_csv(out / "balance_card_strength.csv")
    assert sorted(strength["players"]) == [2, 3]
    sweep = pd.read_csv(out / "balance_card_sweep.csv")
    [s] = pd.read_csv(out / "card_suggestions.csv").to_dict("records")
    worst = sweep.assign(a=sweep["effect"].abs()).groupby("value")["a"].max()
    assert s["suggested"] == worst.idxmin() and {"effect_at_2p", "effect_at_3p"} <= set(s)
    at = sweep[sweep["value"] == s["suggested"]].set_index("players")["effect"]
    assert np.isclose(s["effect_at_2p"], at[2]) and np.isclose(s["effect_at_3p"], at[3])


def test_cards_sweep_rejects_a_field_it_cannot_sweep_before_playing(capsys):
    from boardsim import cli

    assert cli.main(["cards", "fliptoons", "--sweep", "bonus"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "not a sweepable card field" in err and "fame" in err and "\n" not in err
