"""FlipToons speed and solo strength.

Prints: games/s per core with fame_per_cost at 2 players, 4 players and solo (1 thread, so the
figure is per core; targets: >= 20,000 2-player games/s, goal 100,000); the lookahead policy's
decision latency at 100 playouts per candidate (target <= 20 ms); and each heuristic's solo win rate
at each difficulty with a 95% Wilson interval.

Run:  python benchmarks/bench_fliptoons.py [--games N] [--solo-games N] [--lookahead-games N]
Warms the Numba cache first so compile time is not counted.

``--compile-profile`` instead compiles the 2-player fame_per_cost kernel into an empty cache in a fresh
process and prints where its cold compile goes: each dispatcher's compile time, inclusive of the callees it
compiles (numba's own per-pass timings: type inference, then LLVM lowering, optimisation and code
generation), and every dispatcher compiled in more than one signature.

``--profile`` instead prints where a 2- and a 4-player fame_per_cost game spends its time: the share of each part
of a game (flip, Check Fame, market decisions ...) and its cost per call, timed with the CPU's cycle counter
around each call of the engine's own functions.  The timed loop follows ``step.advance`` for a lean cell of
2-4 seats, and its games are checked against ``game.play``'s (same scores), so a change of the engine that
it does not follow fails loudly instead of timing another game.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from scipy.stats import binomtest
from timing import games_per_second

from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.games.fliptoons.decide import choose
from boardsim.games.fliptoons.engine import (
    _apply,
    _banner,
    _cleanup,
    _decay,
    _final_flip,
    _hooks,
    _market_count,
    _record_fame,
    _refill,
    _setup,
    _skunk,
)
from boardsim.games.fliptoons.grid import _place_all, _score_player, _shuffle
from boardsim.games.fliptoons.kernel import (
    _count_owned,
    _reset,
    _write_row,
    consts,
    custom_none,
    first_decision,
    rule_arrays,
)
from boardsim.games.fliptoons.lookahead import lookahead_choose
from boardsim.games.fliptoons.state import (
    ACTS,
    BONUS_ACT,
    DECK,
    DN,
    FAME,
    FIRST,
    GF,
    GK,
    GN,
    INTURN,
    LOG_W,
    MAXFAME,
    N_STATS,
    PH_CLEANUP,
    PH_DONE,
    PH_MARKET,
    PH_START,
    PHASE,
    Q0,
    QN,
    R_ACTIONS,
    R_DECAY_PLAYERS,
    R_HOOK_TIMING,
    R_MAX_ROUNDS,
    R_SNAKE_ORDER,
    ROUND,
    SPEND,
    TURN,
    Outputs,
    Results,
    W,
    _alloc,
)
from boardsim.rng import game_seed, seed_state


def lookahead_latency(game, players: int, playouts: int, decisions: int, horizon: int = 0) -> tuple[float, float]:
    """Median and max seconds per lookahead market decision, at the first decision of many games."""
    seats = [Seat("lookahead", {"playouts": playouts, "horizon": horizon})] + [Seat("fame_per_cost")] * (players - 1)
    prep = game.prepare(players, seats, {}, game.card_table())
    C, seat_rules = consts(prep), rule_arrays(prep)
    maxc, toon_size = (int(x) for x in prep["sizes"])
    times = []
    for i in range(decisions):
        S, X, U, L, O, rng = first_decision(np.uint64(77), np.int64(i), players, C, seat_rules, custom_none(), maxc,
                                            toon_size)
        if S.shared[PHASE] == PH_DONE:
            continue
        p = (S.shared[FIRST] + S.shared[TURN]) % players
        t0 = time.process_time()  # CPU time: the decision runs on one thread
        lookahead_choose(p, S, C, X, U, L, rng, None, None, None)
        times.append(time.process_time() - t0)
    return float(np.median(times)), float(np.max(times))


def compile_profile(top: int = 25) -> None:
    """Runs in a process whose Numba cache is empty: compile, then print each dispatcher's pass timings."""
    from boardsim import custom, rng, rulelist
    from boardsim.games.fliptoons import decide, engine, grid, kernel, lookahead, state, step, subchoices
    t0, c0 = time.perf_counter(), time.process_time()
    game = get("fliptoons")
    game.play(game.prepare(2, [Seat("fame_per_cost")] * 2, {}, game.card_table()), 1, 0, 10)
    print(f"cold compile and 10 games: {time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU")
    rows, multi = [], []
    for mod in (state, subchoices, grid, engine, decide, step, lookahead, kernel, rng, rulelist, custom):
        for name, obj in vars(mod).items():
            py = getattr(obj, "py_func", None)
            if not hasattr(obj, "overloads") or py is None or py.__module__ != mod.__name__:
                continue
            label = f"{mod.__name__.rsplit('.', 1)[-1]}.{name}"
            if len(obj.overloads) > 1:
                multi.append(f"{label} ({len(obj.overloads)} signatures)")
            for cres in obj.overloads.values():
                times: dict[str, float] = {}
                for passes in (cres.metadata or {}).get("pipeline_times", {}).values():
                    for pass_name, t in passes.items():
                        key = pass_name.split("_", 1)[-1]
                        times[key] = times.get(key, 0.0) + t.run
                rows.append((sum(times.values()), times.get("nopython_type_inference", 0.0),
                             times.get("native_lowering", 0.0) + times.get("native_parfor_lowering", 0.0), label))
    print(f"{len(rows)} compiled signatures; seconds (wall) per dispatcher, callees it compiled included:")
    print(f"{'total':>7} {'typing':>7} {'LLVM':>7}  dispatcher")
    for total, typing, llvm, label in sorted(rows, reverse=True)[:top]:
        print(f"{total:7.2f} {typing:7.2f} {llvm:7.2f}  {label}")
    print("compiled in more than one signature:", ", ".join(multi) or "none")


@intrinsic
def _cycles(typingctx):
    """The CPU's cycle counter (llvm.readcyclecounter: rdtsc on x86)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.uint64(), codegen


PARTS = ("setup (seed, reset, toon deck)", "flip: shuffle", "flip: place cards", "Check Fame: score",
         "Check Fame: per-card stats", "Snake banners, Skunk", "market: decide", "market: apply",
         "end of turn: hooks", "end of turn: refill", "end of market: decay", "cleanup", "final flip",
         "result row")


@njit(nogil=True)
def _timed_games(cell_key, n, P, C, maxc, toon_size, outs, cyc, calls):
    """Games 0..n-1 of a lean cell of P >= 2 seats, as step.advance plays them (no log), with the cycles
    of each part added to cyc[part] and its calls counted in calls[part]."""
    S = _alloc(P, C.cards.shape[0], maxc, toon_size, C.prices.shape[0])
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    rng = np.empty(4, dtype=np.uint64)
    log = np.zeros((1, LOG_W), dtype=np.int32)
    for i in range(n):
        t0 = _cycles()
        seed_state(game_seed(cell_key, i), rng)
        if i > 0:
            _reset(S, None, P, np.int64(C.prices.shape[0]))
        O = Outputs(outs.stats[i], outs.round_fame[i], log)
        _setup(S, C, rng)
        t1 = _cycles()
        cyc[0] += t1 - t0
        calls[0] += 1
        while sh[PHASE] != PH_DONE:
            ph = sh[PHASE]
            if ph == PH_START:  # engine._start_round
                sh[ROUND] += 1
                for j in range(P):
                    p = j if rules[R_SNAKE_ORDER] == 0 else (sh[FIRST] + j) % P
                    t0 = _cycles()
                    _shuffle(rng, pc[p, DECK], np.int64(pv[p, DN]))
                    t1 = _cycles()
                    _place_all(p, S, C, O, rng)
                    t2 = _cycles()
                    cyc[1] += t1 - t0
                    cyc[2] += t2 - t1
                    calls[1] += 1
                    calls[2] += 1
                for p in range(P):
                    t0 = _cycles()
                    f = _score_player(p, pc, pv, sh, mk, C.cards, rules)
                    pv[p, FAME] = f
                    pv[p, SPEND] = f
                    pv[p, BONUS_ACT] = 0
                    if f > pv[p, MAXFAME]:
                        pv[p, MAXFAME] = f
                    t1 = _cycles()
                    _record_fame(p, S, O)
                    t2 = _cycles()
                    cyc[3] += t1 - t0
                    cyc[4] += t2 - t1
                    calls[3] += 1
                    calls[4] += 1
                t0 = _cycles()
                for p in range(P):
                    nq = pv[p, QN]
                    pv[p, QN] = 0
                    for t in range(nq):
                        k = pv[p, Q0 + t]
                        g = np.int64(-1)
                        for j in range(pv[p, GN]):
                            if pc[p, GK, j] == k and pc[p, GF, j] == 0:
                                g = j
                        _banner(p, k, g, np.int64(1), S, C, O, rng)
                _skunk(S, C, O, rng)
                sh[PHASE] = PH_MARKET
                sh[TURN] = 0
                sh[INTURN] = 0
                cyc[5] += _cycles() - t0
                calls[5] += 1
            elif ph == PH_MARKET:
                if sh[TURN] >= P:
                    t0 = _cycles()
                    if rules[R_HOOK_TIMING] != 0:
                        for j in range(P):
                            _hooks((sh[FIRST] + j) % P, S, C, O, None, rng)
                        _refill(S, C)
                    if P <= rules[R_DECAY_PLAYERS]:
                        _decay(S, C, O)
                    sh[PHASE] = PH_CLEANUP
                    cyc[10] += _cycles() - t0
                    calls[10] += 1
                    continue
                p = (sh[FIRST] + sh[TURN]) % P
                if sh[INTURN] == 0:
                    pv[p, ACTS] = int(rules[R_ACTIONS]) + pv[p, BONUS_ACT]
                    pv[p, BONUS_ACT] = 0
                    sh[INTURN] = 1
                while pv[p, ACTS] > 0:
                    t0 = _cycles()
                    a = choose(p, S, C, None, None, rng)
                    t1 = _cycles()
                    _apply(p, a, S, C, O, rng)
                    t2 = _cycles()
                    cyc[6] += t1 - t0
                    cyc[7] += t2 - t1
                    calls[6] += 1
                    calls[7] += 1
                t0 = _cycles()  # engine._end_turn
                pv[p, ACTS] = 0
                if rules[R_HOOK_TIMING] == 0:
                    _hooks(p, S, C, O, None, rng)
                t1 = _cycles()
                if _market_count(mk, np.int64(sh[W])) < sh[W]:
                    _refill(S, C)
                sh[TURN] += 1
                sh[INTURN] = 0
                t2 = _cycles()
                cyc[8] += t1 - t0
                cyc[9] += t2 - t1
                calls[8] += 1
                calls[9] += 1
            elif ph == PH_CLEANUP:
                t0 = _cycles()
                _cleanup(S, C, O, rng)
                cyc[11] += _cycles() - t0
                calls[11] += 1
            else:
                t0 = _cycles()
                _final_flip(S, C, O, rng, None)
                cyc[12] += _cycles() - t0
                calls[12] += 1
        t0 = _cycles()
        _count_owned(S, O.stats)
        _write_row(i, S, outs.score, outs.win, outs.game_out, outs.seat_out)
        cyc[13] += _cycles() - t0
        calls[13] += 1


def profile(game, players: int, n_games: int, chunk: int = 5000) -> None:
    """Print the share of each part of a fame_per_cost game (``--profile``); checks the timed games first."""
    prep = game.prepare(players, [Seat("fame_per_cost")] * players, {}, game.card_table())
    C = consts(prep)
    maxc, toon_size = (int(x) for x in prep["sizes"])
    K, R = prep["cards"].shape[0], int(prep["rules"][R_MAX_ROUNDS])
    outs = Results(np.zeros((chunk, players), np.int64), np.zeros((chunk, players)), np.zeros((chunk, 6), np.int64),
                   np.zeros((chunk, players, 4), np.int64), np.zeros((chunk, N_STATS, players, K), np.int32),
                   np.zeros((chunk, players, R), np.int16))
    cyc, calls = np.zeros(len(PARTS), np.uint64), np.zeros(len(PARTS), np.int64)
    _timed_games(np.uint64(7), chunk, np.int64(players), C, maxc, toon_size, outs, cyc, calls)
    if not (outs.score == game.play(prep, 7, 0, chunk)["score"]).all():
        raise SystemExit("--profile: the timed loop no longer plays the engine's games; update _timed_games")
    cyc[:], calls[:] = 0, 0
    c0 = time.process_time()
    for k in range(max(1, n_games // chunk)):
        _timed_games(np.uint64(100 + k), chunk, np.int64(players), C, maxc, toon_size, outs, cyc, calls)
    n = max(1, n_games // chunk) * chunk
    cpu = time.process_time() - c0
    # The counter runs while another process has the core too: each part's share of the counted cycles is
    # turned into CPU time (the timed parts cover nearly all of the loop).
    print(f"fliptoons {players}p fame_per_cost, {n:,} games timed part by part: {n / cpu:,.0f} games per CPU "
          f"second, {cpu / n * 1e6:.1f} us CPU a game")
    print(f"  {'part':32s} {'share':>6s} {'us/game':>8s} {'calls/game':>10s} {'ns/call':>8s}")
    for j, name in enumerate(PARTS):
        if calls[j]:
            share = cyc[j] / cyc.sum()
            print(f"  {name:32s} {share:6.1%} {share * cpu / n * 1e6:8.2f} {calls[j] / n:10.2f} "
                  f"{share * cpu / calls[j] * 1e9:8.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--solo-games", type=int, default=4000)
    ap.add_argument("--lookahead-games", type=int, default=200)
    ap.add_argument("--compile-profile", action="store_true", help="where a cold compile goes (empty cache)")
    ap.add_argument("--profile", action="store_true", help="where a 2- and a 4-player game spends its time")
    ap.add_argument("--in-empty-cache", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.in_empty_cache:
        compile_profile()
        return
    if args.compile_profile:
        with tempfile.TemporaryDirectory() as cache:
            subprocess.run([sys.executable, __file__, "--in-empty-cache"], check=True,
                           env={**os.environ, "NUMBA_CACHE_DIR": cache})
        return
    game = get("fliptoons")
    table = game.card_table()
    numba.set_num_threads(1)
    if args.profile:
        for players in (2, 4):
            profile(game, players, args.games)
        return
    for players in (2, 4, 1):
        prep = game.prepare(players, [Seat("fame_per_cost")] * players, {}, table)
        game.play(prep, 1, 0, 500)  # compile or load from cache
        wall, cpu = games_per_second(game, prep, args.games)
        print(f"fliptoons {players}p fame_per_cost threads=1: {wall:,.0f} games/s wall, "
              f"{cpu:,.0f} games per CPU second")
    lookahead_latency(game, 2, 2, 1)  # compile
    for players, horizon in ((1, 0), (2, 0), (4, 0), (2, 3), (4, 3)):
        med, worst = lookahead_latency(game, players, 100, 20, horizon)
        depth = f"horizon {horizon} rounds" if horizon else "to the end"
        print(f"lookahead {players}p, 100 playouts per candidate ({depth}): median {med * 1e3:.1f} ms CPU "
              f"per decision (max {worst * 1e3:.1f} ms)")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    print("solo win rate (95% Wilson interval):")
    heuristics = [("random", {}), ("highest_rank", {}), ("priority", {}), ("fame_per_cost", {}), ("synergy", {}),
                  ("lookahead", {"playouts": 20})]
    for level in ("easy", "normal", "hard"):
        for name, params in heuristics:
            n = args.lookahead_games if name == "lookahead" else args.solo_games
            prep = game.prepare(1, [Seat(name, params)], {"solo_difficulty": level}, table)
            r = game.play(prep, 2024, 0, n)
            k = int(r["win"][:, 0].sum())
            ci = binomtest(k, n).proportion_ci(method="wilson")
            label = name + (f"({params['playouts']} playouts)" if params else "")
            print(f"  {level:6s} {label:26s} {k / n:6.1%}  [{ci.low:.1%}, {ci.high:.1%}]  n={n}")


if __name__ == "__main__":
    main()
