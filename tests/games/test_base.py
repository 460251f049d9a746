"""games/base.py helpers: pointer batch kernels, compiled once, also run as plain Python."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit, types

from boardsim.games import get
from boardsim.games.base import Seat, pointer_kernel

# Two games of each engine and a trace, as JSON: run here (jitted) and interpreted.
SCRIPT = """
import json, warnings
from boardsim.games import get
from boardsim.games.base import Seat
warnings.simplefilter("ignore")  # interpreted uint64 generator arithmetic wraps, as it does when jitted
out = {}
for name in ("art_deco", "fliptoons", "wagons"):
    g = get(name)
    prep = g.prepare(g.default_players, [Seat(g.default_policy)] * g.default_players, {}, g.card_table())
    r = g.play(prep, 11, 3, 2)
    out[name] = [r["score"].tolist(), r["win"].tolist(), g.trace(prep, 11, 4)]
print(json.dumps(out))
"""


def test_pointer_kernels_run_interpreted_and_match_the_jitted_games():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    interpreted = json.loads(done.stdout)
    for name in ("art_deco", "fliptoons", "wagons"):
        g = get(name)
        prep = g.prepare(g.default_players, [Seat(g.default_policy)] * g.default_players, {}, g.card_table())
        r = g.play(prep, 11, 3, 2)
        assert interpreted[name] == [r["score"].tolist(), r["win"].tolist(), g.trace(prep, 11, 4)]


ENGINE = types.int64(types.int64, types.float64[::1])
KERNEL = types.void(types.FunctionType(ENGINE), types.float64[::1])


@njit
def _engine(i, out):
    out[i] = 2.0 * i
    return 0


def test_pointer_kernel_compiles_one_signature_and_reraises_compile_errors():
    @njit
    def kernel(engine, out):
        for i in range(out.shape[0]):
            engine(np.int64(i), out)

    k = pointer_kernel(kernel, _engine, KERNEL, ENGINE)
    out = np.zeros(3)
    k(_engine, out)
    assert out.tolist() == [0.0, 2.0, 4.0] and len(k.signatures) == 1
    assert pointer_kernel(kernel, _engine, KERNEL, ENGINE) is k and len(k.signatures) == 1

    @njit
    def wrong(engine, out):
        engine(out)  # one argument short: the compile, run in its own thread, fails here

    with pytest.raises(ValueError, match="mismatch of arguments number"):
        pointer_kernel(wrong, _engine, KERNEL, ENGINE)


# -- engine variants: Policy.needs and Game.cell_needs choose what the games' own checks chose before ---------
# The reference functions below are the selections the games made before issue 29 (Art Deco's asks_each_time and
# _has_mcts, FlipToons' _has_mcts and is_lean, Wagons' _has_mcts, fast_flag and user_flag), kept here as they
# were so the needs can be checked against them on many seat mixes.

AD_RULES = (
    [{"bid_up_to": "value"}, {"buy_up_to": "value"}],  # tables: the plain engine
    [{"bid_up_to": "value + 6", "if": "leader_is_high == 1"}, {"bid_up_to": "value * 1.1"}, {"buy_up_to": "value"}],
    [{"bid_up_to": "value"}, {"sell": "oldest", "if": "round == 2"}],  # may sell: asked each time
    [{"keep": True}, {"sell": "oldest", "if": "round == 2"}],  # never sells
    [{"bid_up_to": "value", "if": "cash > 20"}, {"buy_up_to": "value"}],  # cash: no bid table
    [{"bid_up_to": "value + $t", "if": "cards_needed > 0"}],
)
SEATS = {
    "art_deco": [Seat("random"), Seat("par"), Seat("multiple"), Seat("eligibility"), Seat("blocker"),
                 Seat("custom", {"function": "tests.games.art_deco.scorers:par"}),
                 Seat("mcts", {"iterations": 20})]
    + [Seat("rules", {"rules": r, "t": 2}) for r in AD_RULES],
    "fliptoons": [Seat("random"), Seat("highest_rank"), Seat("priority"), Seat("fame_per_cost"),
                  Seat("synergy", {"flips": 2}), Seat("lookahead", {"playouts": 2}),
                  Seat("rules", {"rules": [{"hire": "highest_rank"}]}),
                  Seat("custom", {"function": "tests.games.fliptoons.scorers:fame_per_cost"}),
                  Seat("mcts", {"iterations": 20})],
    "wagons": [Seat(p, {"placement": place}) for p in ("first", "gain", "gain_minus_gift", "random")
               for place in ("random", "greedy", "lands", "fast", "quick")]
    + [Seat("rules", {"rules": [{"draft": "best_gain"}], "placement": place}) for place in ("greedy", "fast")]
    + [Seat("custom", {"function": "tests.games.wagons.scorers:gain_minus_gift", "placement": place})
       for place in ("lands", "quick")]
    + [Seat("mcts", {"iterations": 20, "placement": place}) for place in ("greedy", "fast", "quick")],
}


def _before(name, pol):
    """The variant the game chose before issue 29, from the prepared policy matrix."""
    codes = [int(c) for c in pol[:, 0]]
    if name == "art_deco":
        from boardsim.games.art_deco import decide

        asks = any(c == decide.CUSTOM or c == decide.RULES and not (
            row[decide.P_BID_TABLE] and row[decide.P_BUY_TABLE] and not row[decide.P_MAY_SELL])
            for c, row in zip(codes, pol, strict=True))
        return decide.MCTS in codes, asks
    if name == "fliptoons":
        from boardsim.games.fliptoons import state

        if state.POL_MCTS in codes:
            return True, None  # the mcts variant: lean or not does not apply
        return False, all(c in (state.POL_RANDOM, state.POL_HIGHEST, state.POL_PRIORITY, state.POL_FPC)
                          for c in codes)
    from boardsim.games.wagons import policies

    fast = True if bool((pol[:, policies.COL_PLACE] >= policies.PLACE_FAST).any()) else None
    user = True if any(c in (policies.RULES, policies.CUSTOM) for c in codes) else None
    if policies.MCTS in codes:
        return True, None, user  # the mcts variant takes the user flag alone
    return False, fast, user


def _now(game, prep):
    """The variant the game's play picks from the cell's needs."""
    needs = game.cell_needs(prep)
    if game.name == "art_deco":
        return "search" in needs, "user" in needs
    if game.name == "fliptoons":
        return ("search" in needs, None if "search" in needs else not needs & game.FULL_ENGINE)
    fast, user = game._flags(prep)
    return "search" in needs, None if "search" in needs else fast, user


@pytest.mark.parametrize("name", sorted(SEATS))
def test_needs_pick_the_variant_the_game_picked_before(name):
    g = get(name)
    cards = g.card_table()
    pool = SEATS[name]
    rng = np.random.default_rng(29)
    mixes = [[s] * g.max_players for s in pool]  # every seat alone
    mixes += [[pool[i] for i in rng.integers(0, len(pool), rng.integers(g.min_players, g.max_players + 1))]
              for _ in range(150)]
    seen = set()
    for seats in mixes:
        if len(seats) < g.min_players:
            seats = seats * g.min_players
        prep = g.prepare(len(seats), seats, {}, cards)
        before = _before(name, prep["policies"])
        assert _now(g, prep) == before, [s.label() for s in seats]
        seen.add(before)
    assert len(seen) >= {"art_deco": 4, "fliptoons": 3, "wagons": 6}[name]  # every variant met
