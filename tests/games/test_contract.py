"""The game contract: every game in ``boardsim.games.names()`` passes the same checks.

A fourth game follows this checklist (docs/guide/add-a-game.md says the same, with the why of each step):

1. A package ``boardsim/games/<name>/`` with ``state.py``, ``rules.py`` (``OPTIONS``), ``engine.py`` (the rules
   only), ``decide.py``, ``kernel.py``, ``policies.py`` (``POLICIES``: each a ``base.Policy`` with its
   ``needs``), ``explain.py``, ``balance.py`` (a ``base.BalanceModule``, ``CHART_NOTES`` declared) and
   ``cards.py`` (``load_table``, ``apply_edits``), and one line in ``games/__init__.py``'s registry.
2. ``__init__.py`` defines a ``base.Game`` subclass and ``GAME``: ``name``, ``title``, ``rules_page``, the player
   range, ``options``, ``policies``, ``default_policy``, ``seat_counters``, ``game_counters``, ``end_reasons``,
   ``balance``, ``card_module`` (or its own ``card_table``), and the methods ``prepare(n_players, seats, rules,
   cards)``, ``play``, ``trace``, ``trace_scores`` and ``play_stepped``.
3. ``play`` picks its engine variant from ``cell_needs`` (override ``seat_needs`` when a need depends on a
   parameter), allocates with ``new_results`` and returns ``result_arrays``.
4. The rules page ``docs/rules/<name>.md`` names every option, policy and policy parameter in backticks.
5. This test passes: chunking and threads never change results; the result arrays have the declared shapes,
   dtypes and counters; no rule option, card field or policy parameter recompiles anything; ``trace`` prints
   the scores ``play`` returns; the step interface plays ``play``'s games; the rules page is complete.  Then
   add the game's fingerprint test (``tests/fingerprint.py``).

Small game counts throughout: after the engines compile (cached), each game's checks take a few seconds.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

from boardsim import games
from boardsim.errors import BadInput
from boardsim.games.base import NEEDS, BalanceModule, Game, Option, Prepared, Seat

ROOT = Path(__file__).resolve().parents[2]
KEY = 0xC0_29
NAMES = games.names()


def _default(game: Game, rules: dict | None = None, cards=None, seats: list[Seat] | None = None) -> Prepared:
    seats = seats or [Seat(game.default_policy)] * game.default_players
    return game.prepare(len(seats), seats, rules or {}, game.card_table() if cards is None else cards)


def _plain_mix(game: Game) -> list[Seat]:
    """One seat of each built-in policy that needs no user code, search or rollouts, as many as seats allow."""
    plain = [p.name for p in game.policies if not p.open and not p.needs and not p.rollouts]
    n = max(game.min_players, min(game.max_players, len(plain)))
    return [Seat(plain[i % len(plain)]) for i in range(n)]


def _cells(game: Game) -> list[Prepared]:
    return [_default(game), _default(game, seats=_plain_mix(game))]


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray], keys=None) -> None:
    for k in keys or a:
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]), err_msg=k)


@pytest.mark.parametrize("name", NAMES)
def test_the_game_declares_the_contract(name):
    game = games.get(name)
    assert game.name == name and game.title
    assert game.min_players <= game.default_players <= game.max_players
    assert game.default_policy in game.policy_names()
    assert len(set(game.policy_names())) == len(game.policies)
    assert game.balance is None or isinstance(game.balance, BalanceModule)
    assert isinstance(game.chart_notes(), dict)
    assert (ROOT / game.rules_page).is_file()
    for policy in game.policies:
        assert policy.needs <= NEEDS, policy.name
        assert not policy.rollouts or policy.rollouts in {o.name for o in policy.params}


@pytest.mark.parametrize("name", NAMES)
def test_chunking_and_threads_never_change_results(name):
    game = games.get(name)
    for prep in _cells(game):
        whole = game.play(prep, KEY, 0, 10)
        parts = [game.play(prep, KEY, 0, 3), game.play(prep, KEY, 3, 6), game.play(prep, KEY, 9, 1)]
        for k in whole:
            np.testing.assert_array_equal(whole[k], np.concatenate([p[k] for p in parts]), err_msg=k)
        _same({k: v[4:7] for k, v in whole.items()}, game.play(prep, KEY, 4, 3))
        threads = numba.get_num_threads()
        try:
            numba.set_num_threads(1)
            one = game.play(prep, KEY, 0, 10)
        finally:
            numba.set_num_threads(threads)
        _same(whole, one)


@pytest.mark.parametrize("name", NAMES)
def test_results_have_the_declared_shapes_dtypes_and_counters(name):
    game = games.get(name)
    for prep in _cells(game):
        n, p = 7, prep.n_players
        out = game.play(prep, KEY, 2, n)
        assert out["score"].shape == (n, p) and out["score"].dtype == np.int64
        assert out["win"].shape == (n, p) and out["win"].dtype == np.float64
        for k in ("rounds", "first_player", "end"):
            assert out[k].shape == (n,) and out[k].dtype == np.int64, k
        assert out["counters"].shape == (n, p, len(game.seat_counters))
        for k, c in enumerate(game.seat_counters):
            assert out[c].shape == (n, p) and out[c].dtype == np.int64, c
            np.testing.assert_array_equal(out[c], out["counters"][:, :, k])
        for c in game.game_counters:
            assert out[c].shape == (n,) and out[c].dtype == np.int64, c
        shares = out["win"].sum(axis=1)
        assert np.all(np.isclose(shares, 1.0) | (shares == 0.0))
        assert np.all((out["win"] >= 0) & (out["win"] <= 1))
        assert np.all((out["end"] >= 0) & (out["end"] < len(game.end_reasons)))
        assert np.all((out["first_player"] >= 0) & (out["first_player"] < p))
        assert np.all(out["rounds"] >= 1)


def _compiled() -> int:
    """Compiled signatures of every numba function boardsim's modules hold (directly, or in a dict, list or
    tuple of them, as the games keep their variants): a recompile anywhere adds one."""
    seen: dict[int, Dispatcher] = {}

    def visit(obj, depth=0):
        if isinstance(obj, Dispatcher):
            seen[id(obj)] = obj
        elif depth < 2 and isinstance(obj, (dict, list, tuple)):
            for item in obj.values() if isinstance(obj, dict) else obj:
                visit(item, depth + 1)

    for mod_name, mod in list(sys.modules.items()):
        if mod_name.startswith("boardsim") and mod is not None:
            for value in list(vars(mod).values()):
                visit(value)
    return sum(len(d.overloads) for d in seen.values())


def _others(option: Option) -> list:
    """Other valid values of a scalar option (a list option is left out)."""
    if option.kind == "choice":
        return [c for c in option.choices if c != option.default]
    if option.kind == "bool":
        return [not option.default]
    if option.kind in ("int", "float"):
        step = 1 if option.kind == "int" else 0.25
        return [v for v in (option.default + step, option.default - step)
                if (option.low is None or v >= option.low) and (option.high is None or v <= option.high)][:1]
    return []


@pytest.mark.parametrize("name", NAMES)
def test_no_recompile_when_an_option_a_card_or_a_policy_parameter_changes(name):
    game = games.get(name)
    base = _default(game)
    needs = game.cell_needs(base)
    game.play(base, KEY, 0, 3)
    game.trace(base, KEY, 1)
    before = _compiled()
    changed = {"option": 0, "card": 0, "param": 0}

    def run(kind: str, make) -> None:
        try:
            prep = make()
        except BadInput:  # a value this setup refuses (e.g. too few cards for the hand size)
            return
        if game.cell_needs(prep) != needs:  # another engine variant (e.g. Wagons' fast placement): compiled once
            return
        game.play(prep, KEY, 0, 3)
        game.trace(prep, KEY, 1)
        changed[kind] += 1

    for option in game.options:
        for value in _others(option):
            run("option", lambda o=option, v=value: _default(game, rules={o.name: v}))
    table = game.card_table()
    for card, field, value in game.patch_fields(table)[:4]:
        for v in (value + 1, value - 1):
            run("card", lambda c=card, f=field, v=v: _default(game, cards=game.card_table({c: {f: v}})))
    policy = game.policy(game.default_policy)
    for option in policy.params:
        for value in _others(option):
            seats = [Seat(game.default_policy, {option.name: value})] + [Seat(game.default_policy)] * (
                game.default_players - 1)
            run("param", lambda s=seats: _default(game, seats=s))
    assert min(changed.values()) >= 1, changed
    assert _compiled() == before, changed


@pytest.mark.parametrize("name", NAMES)
def test_trace_prints_the_scores_play_returns(name):
    game = games.get(name)
    for prep in _cells(game):
        scores = game.play(prep, KEY, 0, 4)["score"]
        for i in range(4):
            assert game.trace_scores(game.trace(prep, KEY, i)) == scores[i].tolist(), i


@pytest.mark.parametrize("name", NAMES)
def test_the_step_interface_plays_the_batch_kernels_games(name):
    game = games.get(name)
    for prep in _cells(game):
        ref = game.play(prep, KEY, 3, 6)
        got = game.play_stepped(prep, KEY, 3, 6)
        assert {"score", "win"} <= set(got)
        _same(ref, got, [k for k in got if k in ref])


def _documented(text: str, name: str) -> bool:
    return re.search(rf"`{re.escape(name)}\b", text) is not None


@pytest.mark.parametrize("name", NAMES)
def test_every_option_and_policy_is_on_the_rules_page(name):
    game = games.get(name)
    text = (ROOT / game.rules_page).read_text(encoding="utf-8")
    missing = [f"option {o.name}" for o in game.options if not _documented(text, o.name)]
    for policy in game.policies:
        if not _documented(text, policy.name):
            missing.append(f"policy {policy.name}")
        missing += [f"{policy.name} parameter {o.name}" for o in policy.params if not _documented(text, o.name)]
    assert not missing, f"{game.rules_page} does not name: {', '.join(missing)}"
