"""Deck and goal files: bundled data, user files, edits and clear errors."""

from __future__ import annotations

import collections
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from boardsim.errors import BadInput
from boardsim.games.base import Seat
from boardsim.games.wagons import GAME, cards
from boardsim.games.wagons import rules as game_rules
from boardsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[3]


def test_bundled_tables():
    deck = GAME.card_table()
    goals = pd.DataFrame(deck.attrs["goals"])
    assert list(deck["card"]) == list("ABCDEFGHIJKLMNOPQR")
    assert set(deck["source"]) == {"known", "synthetic"}
    assert set(goals["kind"]) == set(cards.GOAL_KINDS)  # all 12 kinds are used
    assert sorted(deck["goal"]) == list(range(1, 19))
    lands = collections.Counter(deck[[f"{c}_land" for c in cards.CORNERS]].to_numpy().ravel())
    syms = collections.Counter(deck[[f"{c}_symbol" for c in cards.CORNERS]].to_numpy().ravel())
    assert set(lands.values()) == {12} and set(syms.values()) == {12}
    assert list(GAME.goal_table()["name"]) == list(goals["name"])


def test_user_deck_round_trips(tmp_path):
    deck = GAME.card_table()
    path = tmp_path / "deck.csv"
    deck.to_csv(path, index=False)
    again = GAME.card_table(card_file=str(path))
    pd.testing.assert_frame_equal(again, deck)
    goals = GAME.goal_table()
    gpath = tmp_path / "goals.csv"
    goals.to_csv(gpath, index=False)
    pd.testing.assert_frame_equal(GAME.goal_table(str(gpath)), goals)


def test_user_goal_file_changes_play(tmp_path):
    goals = GAME.goal_table()
    goals.loc[goals["name"] == "Badlands", ["kind", "symbol", "land", "a"]] = ["symbol_on_land", "Gun", "Snow", 50]
    path = tmp_path / "goals.csv"
    goals.to_csv(path, index=False)
    for deck in (GAME.card_table(goal_file=str(path)), GAME.card_table(card_file=str(path)),
                 GAME.card_table(card_file=[str(path)])):
        got = pd.DataFrame(deck.attrs["goals"])
        assert got.loc[0, "kind"] == "symbol_on_land" and int(got.loc[0, "a"]) == 50
    seats = [Seat("first"), Seat("first")]
    base = GAME.prepare(2, seats, {"fixed_goal": 1}, GAME.card_table())
    edited = GAME.prepare(2, seats, {"fixed_goal": 1}, GAME.card_table(goal_file=str(path)))
    assert base.rules_hash != edited.rules_hash
    a, b = GAME.play(base, 1, 0, 100), GAME.play(edited, 1, 0, 100)
    assert (b["goal_points"].sum() - a["goal_points"].sum()) > 0
    # tuple and dict forms of the tables
    tables = (GAME.card_table(), GAME.goal_table(str(path)))
    assert GAME.prepare(2, seats, {}, tables).rules_hash == GAME.prepare(
        2, seats, {}, {"deck": tables[0], "goals": tables[1]}).rules_hash


def test_edits():
    deck = GAME.card_table({"A": {"tl_land": "Snow"}, "Badlands": {"a": 7}})
    assert deck.loc[0, "tl_land"] == "Snow" and deck.loc[0, "source"] == "edited"
    assert int(pd.DataFrame(deck.attrs["goals"]).loc[0, "a"]) == 7
    with pytest.raises(BadInput, match="unknown card or goal"):
        GAME.card_table({"Z": {"tl_land": "Snow"}})
    with pytest.raises(BadInput, match="unknown field"):
        GAME.card_table({"A": {"colour": "red"}})
    with pytest.raises(BadInput, match="unknown land 'Swamp'"):
        GAME.card_table({"A": {"tl_land": "Swamp"}})


def _write(tmp_path, table, name="deck.csv"):
    path = tmp_path / name
    table.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda d: d.assign(tl_land=["Swamp"] + list(d["tl_land"][1:])),
         r"line 2 \(card 'A'\)\.tl_land: unknown land 'Swamp'"),
        (lambda d: d.assign(br_symbol=list(d["br_symbol"][:4]) + ["Hat"] + list(d["br_symbol"][5:])),
         r"line 6 \(card 'E'\)\.br_symbol: unknown symbol 'Hat'"),
        (lambda d: d.iloc[:17], "expected 18 cards, found 17"),
        (lambda d: d.drop(columns=["goal"]), "missing goal"),
        (lambda d: d.assign(card=["A"] * 18), "appears twice"),
        (lambda d: d.assign(goal=[0] + list(d["goal"][1:])), "goal number 1..18"),
    ],
)
def test_bad_deck_files(tmp_path, change, match):
    path = _write(tmp_path, change(GAME.card_table()))
    with pytest.raises(BadInput, match=match) as err:
        GAME.card_table(card_file=path)
    assert err.value.file == path and path in str(err.value)


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda g: g.assign(kind=["symbol_everywhere"] + list(g["kind"][1:])), r"line 2 .*unknown kind"),
        (lambda g: g.assign(land=list(g["land"][:2]) + ["Lava"] + list(g["land"][3:])), r"line 4 .*unknown land"),
        (lambda g: g.iloc[:10], "expected 18 goals, found 10"),
        (lambda g: g.assign(a=[""] + list(g["a"][1:])), r"line 2 .*needs symbol, land, a"),
    ],
)
def test_bad_goal_files(tmp_path, change, match):
    goals = GAME.goal_table()
    goals["land"] = goals["land"].astype(object)
    path = _write(tmp_path, change(goals), "goals.csv")
    with pytest.raises(BadInput, match=match) as err:
        GAME.card_table(goal_file=path)
    assert err.value.file == path


def test_unreadable_file():
    with pytest.raises(BadInput, match="cannot read"):
        GAME.card_table(card_file="/nonexistent/deck.csv")


def test_options_and_policies():
    seats = [Seat("gain_minus_gift", {"gift_weight": 0.25}), Seat("random")]
    prep = GAME.prepare(2, seats, {}, GAME.card_table())
    assert prep["policies"][0, 4] == 0.25
    # the base rules share ties; Guns break them only when asked for (Second Shot expansion)
    assert prep.rules["tie_break"] == "shared" and prep["rules"][game_rules.R_TIE] == game_rules.TIE_SHARED
    prep = GAME.prepare(2, seats, {"tie_break": "guns"}, GAME.card_table())
    assert prep["rules"][game_rules.R_TIE] == game_rules.TIE_GUNS
    with pytest.raises(BadInput, match="rules.tie_break"):
        GAME.prepare(2, seats, {"tie_break": "coin"}, GAME.card_table())
    with pytest.raises(BadInput, match=r"seats\[1\].policy"):
        GAME.prepare(2, [seats[0], Seat("nope")], {}, GAME.card_table())
    with pytest.raises(BadInput, match=r"seats\[0\].params"):
        GAME.prepare(2, [Seat("first", {"gift_weight": 1.0}), seats[1]], {}, GAME.card_table())
    with pytest.raises(BadInput, match="players"):
        GAME.prepare(3, seats + seats[:1], {}, GAME.card_table())
    assert GAME.policy_names() == ["first", "gain", "gain_minus_gift", "random", "rules", "custom", "learned", "mcts"]


def test_scenarios_are_valid():
    files = sorted((ROOT / "scenarios").glob("wagons-*.toml"))
    assert len(files) >= 3
    for f in files:
        spec = tomllib.loads(f.read_text())
        assert spec["game"] == "wagons" and spec["players"] == 2
        load_scenario(f)  # every cell, [skill] levels included, is checked as a sweep checks it
        listed = spec.get("seats", [{"policy": GAME.default_policy}])
        seats = [Seat(s["policy"], s.get("params", {})) for s in (listed * 2)[:2]]  # seat i plays seats[i % len]
        GAME.prepare(2, seats, spec.get("rules", {}), GAME.card_table())
        for key, values in spec.get("grid", {}).items():
            for v in values:
                if key.startswith("rules."):
                    GAME.prepare(2, seats, {**spec.get("rules", {}), key[6:]: v}, GAME.card_table())
