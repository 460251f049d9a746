"""A skill ladder (issue 26, first part): ``random``, the built-in heuristics and ``mcts`` at several budgets,
played in a round robin on common deals (``tournament``), ordered by Bradley-Terry rating.

What it measures:

- ``ladder``: one row per rung, strongest first: its rating with interval and Elo, and its head-to-head rate
  against the next rung below (the share of comparisons it finished ahead, deal-level interval);
- ``skill``: the skill depth (the longest chain of rungs, in rating order, in which each beats the next one
  down the chain with an interval above 50%), the Elo span from ``random`` to the strongest, and the share of
  outcomes skill decides (2 players: the strongest rung's rate against ``random`` minus 50%, times 2, so 0 =
  a coin decides, 1 = the stronger always finishes ahead);
- ``first_player``: each rung's first-seat win rate in self-play (every game one deal, seating fixed) with
  a Wilson interval, against the fair share 1 / players.

The share of outcomes skill decides is a property of the ladder's rungs, not of the game alone: a stronger
top rung can only raise it.  At more than 2 players it is computed on the pairwise comparisons in the same way
(the strongest rung's share of comparisons won against ``random``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from boardsim import cost, learned
from boardsim.cell import check_entries
from boardsim.errors import BadParameter
from boardsim.games import get as get_game
from boardsim.games.base import Game
from boardsim.runner import numba_threads
from boardsim.seat import as_seat
from boardsim.stats.intervals import wilson
from boardsim.stats.ratings import ELO
from boardsim.tournaments import MatchStore, TournamentResult, lineups, play_match, run_tournament

DEFAULT_BUDGETS = (10, 100, 1000)


@dataclass
class LadderResult:
    game: str
    players: int
    ladder: pd.DataFrame  # one row per rung, strongest first
    skill: pd.DataFrame  # one row: depth, Elo span, share skill decides
    first_player: pd.DataFrame  # one row per rung
    tournament: TournamentResult


def default_rungs(game: Game, budgets: Sequence[int], policies: Sequence[Any] | None = None,
                  players: int | None = None) -> list[Any]:
    """``random``, then ``policies`` (default: every built-in heuristic that needs no user input: no search,
    no rule list or scorer; then ``learned`` where a model is bundled for ``players``), then ``mcts`` at each
    budget."""
    if policies is None:
        policies = [p.name for p in game.policies
                    if not (p.name in ("random", "mcts", "learned") or p.open or p.rollouts)]
        if players is not None and any(p.name == "learned" for p in game.policies) \
                and learned.bundled_path(game.name, players).exists():
            policies.append("learned")  # between the heuristics and the search (the search taught it)
    rungs = [r for r in policies if as_seat(r).label() != "random"]
    return ["random", *rungs, *(("mcts", {"iterations": int(b)}) for b in budgets)]


def skill_depth(order: Sequence[str], beats: set[tuple[str, str]]) -> int:
    """The longest chain a > b > c ... of rungs taken in ``order`` (strongest first) in which each beats the
    next with an interval above 50% (``beats``); a single rung is a chain of 1."""
    best = [1] * len(order)
    for i in range(len(order) - 1, -1, -1):
        for j in range(i + 1, len(order)):
            if (order[i], order[j]) in beats:
                best[i] = max(best[i], 1 + best[j])
    return max(best) if best else 0


def _first_player(g: Game, players: int, rungs: Sequence[Any], games: int, seed: int,
                  threads: int | None, progress: Any = None, store: MatchStore | None = None,
                  executor: Any = None) -> pd.DataFrame:
    rows = []
    for rung in rungs:
        seat = as_seat(rung)
        match = play_match(g, games, [seat] * players, seed, None, None, players, "fixed", threads,
                           False if progress is None else progress, store, executor)
        n = len(match["win"]) * int(match["arrangements"])
        wins = float(match["win"][:, 0].sum())
        lo, hi = wilson(wins, n)
        rows.append({"policy": seat.label(), "games": n, "first_player_rate": wins / n,
                     "lo": float(lo), "hi": float(hi), "fair_share": 1.0 / players})
    return pd.DataFrame(rows)


def summarize(ratings: pd.DataFrame, pairwise: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ladder (one row per rung, strongest first) and the skill summary from a round robin's ratings
    and pairwise table (``tournament``'s).  The share skill decides has the interval of the strongest rung's
    rate against ``random``, mapped through the same rescaling (monotone, so its coverage is that rate's)."""
    ratings = ratings.set_index("policy")
    order = list(ratings.index)
    pair = pairwise.set_index(["policy", "opponent"])
    rows = []
    for i, name in enumerate(order):
        r = ratings.loc[name]
        row = {"rung": i + 1, "policy": name, "rating": r["rating"], "rating_lo": r["rating_lo"],
               "rating_hi": r["rating_hi"], "elo": r["elo"], "below": None, "vs_below": np.nan,
               "vs_below_lo": np.nan, "vs_below_hi": np.nan,
               "games": int(pairwise.loc[pairwise["policy"] == name, "games"].sum())}
        if i + 1 < len(order) and (name, order[i + 1]) in pair.index:
            h = pair.loc[(name, order[i + 1])]
            row.update(below=order[i + 1], vs_below=h["win_rate"], vs_below_lo=h["win_lo"], vs_below_hi=h["win_hi"])
        rows.append(row)
    ladder = pd.DataFrame(rows)
    ladder["elo_lo"] = ladder["rating_lo"] * ELO
    ladder["elo_hi"] = ladder["rating_hi"] * ELO
    beats = {(a, b) for (a, b), h in pair.iterrows() if h["win_lo"] > 0.5}
    top = order[0]
    if top != "random" and (top, "random") in pair.index:
        h = pair.loc[(top, "random")]
        rate, lo, hi = float(h["win_rate"]), float(h["win_lo"]), float(h["win_hi"])
    else:
        rate = lo = hi = 0.5
    share = [max(0.0, 2.0 * (x - 0.5)) for x in (rate, lo, hi)]
    skill = pd.DataFrame([{
        "skill_depth": skill_depth(order, beats),
        "elo_span": float(ratings.loc[top, "elo"] - ratings.loc["random", "elo"]) if "random" in ratings.index
        else np.nan,
        "skill_share": share[0], "skill_share_lo": share[1], "skill_share_hi": share[2],
        "strongest": top,
        "strongest_vs_random": rate, "strongest_vs_random_lo": lo, "strongest_vs_random_hi": hi,
        "rungs": len(order),
    }])
    return ladder, skill


def estimate(g: Game, players: int, rungs: Sequence[Any], games: int, seed: int = 0,
             threads: int | None = None) -> tuple[float, float]:
    """(estimated seconds of the whole ladder, seconds the calibration took): every match's lineup and every
    rung's self-play timed on its own (``cost.seconds_per_game``).  A match does not cost the mean of its
    rungs' self-play: against a weak seat a search seat's games run longer (FlipToons: mcts(100) against
    random costs 64% of its self-play, not 50%)."""
    t0 = time.perf_counter()
    seats = [as_seat(r) for r in rungs]
    matches = [[seats[i] for i in m] for m in lineups([s.label() for s in seats], players, "round_robin", None)]
    matches += [[s] * players for s in seats]
    total = sum(cost.seconds_per_game(g, players, lineup, seed=seed, threads=threads) for lineup in matches) * games
    return total, time.perf_counter() - t0


def run_ladder(game: str | Game, players: int = 2, budgets: Sequence[int] = (10, 100, 1000),
               games: int = 200, policies: Sequence[Any] | None = None, seed: int = 0,
               threads: int | None = None, progress: bool | None = None,
               store: MatchStore | None = None, executor: Any = None) -> LadderResult:
    """The skill ladder of ``game`` at ``players`` seats: ``random``, ``policies`` (default: every built-in
    heuristic) and ``mcts`` at each of ``budgets``; ``games`` per match of the round robin (every deal in every
    seating) and per rung's self-play.  Unless ``progress`` is False it prints the estimated time (from a
    short calibration) before it starts, and one progress bar moves through every match.  With ``store``,
    every finished match is saved and a rerun after a kill reads back the matches it finds."""
    g = get_game(game) if isinstance(game, str) else game
    g.check_players(players)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise BadParameter("games", f"got {games!r}; allowed: a whole number >= 1")
    for b in budgets:
        if isinstance(b, bool) or not isinstance(b, int) or b < 1:
            raise BadParameter("budgets", f"got {b!r}; allowed: whole numbers >= 1")
    if policies is not None:  # the caller's rungs, each checked by the entry it wrote before any game
        check_entries(g, players, [(f"policies[{i}]", as_seat(p)) for i, p in enumerate(policies)], None,
                      g.card_table(), BadParameter, params=False)
    rungs = default_rungs(g, budgets, policies, players)
    for r in rungs:
        as_seat(r)  # an unknown policy or parameter is refused before any game
    with numba_threads(threads):
        bar = cost.Bar(False) if progress is False else None
        if bar is None:
            seconds, took = estimate(g, players, rungs, games, seed, threads)
            cost.announce(seconds, took, f"{g.title} ladder, {len(rungs)} rungs at {players} players")
            n_matches = len(lineups([as_seat(r).label() for r in rungs], players, "round_robin", None))
            bar = cost.Bar(True, total=(n_matches + len(rungs)) * games, desc="ladder")
        with bar:
            moved = False if progress is False else bar.update
            res = run_tournament(g, rungs, players=players, games=games, seed=seed, threads=threads,
                                 progress=moved, store=store, executor=executor)
            first = _first_player(g, players, rungs, games, seed, threads, moved, store, executor)
    ladder, skill = summarize(res.ratings, res.pairwise)
    return LadderResult(g.name, players, ladder, skill, first, res)
