"""Tournaments: every policy against every other, with seats rotated on paired seeds.

Each match is one ``simulate`` call with ``rotate_seats=True``: every deal is
played once per rotation of the seats, and every match reuses the same cell
seed (common random numbers), so differences between policies are not
drowned by deal luck.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from boardsim.analysis.ratings import bradley_terry
from boardsim.analysis.stats import wilson
from boardsim.errors import BadInput
from boardsim.games import get as get_game
from boardsim.games.base import Game, Seat
from boardsim.runner import as_seat, simulate

MODES = ("round_robin", "field")


@dataclass
class TournamentResult:
    """Tables of one tournament (all tidy DataFrames)."""

    game: str
    players: int
    mode: str
    policies: list[str]
    matches: pd.DataFrame  # one row per match x seat
    pairwise: pd.DataFrame  # one row per (policy, opponent)
    ratings: pd.DataFrame  # Bradley-Terry, one row per policy
    seed: int

    def matrix(self, value: str = "win_rate") -> pd.DataFrame:
        """Policy x opponent table of ``value`` (``win_rate``, ``win_lo``, ``win_hi``, ``games``)."""
        return self.pairwise.pivot(index="policy", columns="opponent", values=value).reindex(
            index=self.policies, columns=self.policies
        )


def _lineups(labels: list[str], players: int, mode: str, field: str | None) -> list[tuple[int, ...]]:
    k = len(labels)
    if mode == "field":
        if field is None:
            raise BadInput("field", "a one-vs-field tournament needs a field policy")
        return [(i,) for i in range(k)]
    if k < 2:
        raise BadInput("policies", "a round robin needs at least two policies")
    if k >= players:
        return list(itertools.combinations(range(k), players))
    # fewer policies than seats: every multiset of the policies that uses each at least once
    combos = itertools.combinations_with_replacement(range(k), players)
    return [c for c in combos if len(set(c)) >= 2]


def run_tournament(
    game: str | Game,
    policies: Sequence[Any],
    players: int = 2,
    games: int = 10_000,
    seed: int = 0,
    mode: str = "round_robin",
    field: Any = None,
    rules: Mapping[str, Any] | None = None,
    cards: Mapping[str, Mapping[str, Any]] | None = None,
    threads: int | None = None,
    progress: bool | None = None,
) -> TournamentResult:
    """Round robin (every combination of ``players`` distinct policies) or one-vs-field
    (each policy in one seat against ``field`` in the others); ``games`` per match."""
    g = get_game(game) if isinstance(game, str) else game
    if mode not in MODES:
        raise BadInput("mode", f"unknown mode {mode!r} (known: {', '.join(MODES)})")
    g.check_players(players)
    seats = [as_seat(p) for p in policies]
    labels = [s.label() for s in seats]
    if len(set(labels)) != len(labels):
        raise BadInput("policies", "each policy may appear only once")
    field_seat = as_seat(field) if field is not None else None
    rows = []
    k = len(seats)
    pair_wins = np.zeros((k, k))
    pair_games = np.zeros((k, k))
    for m, lineup in enumerate(_lineups(labels, players, mode, field_seat and field_seat.label())):
        if mode == "field":
            table: list[Seat] = [seats[lineup[0]]] + [field_seat] * (players - 1)
        else:
            table = [seats[i] for i in lineup]
        df = simulate(g, games, table, seed=seed, rules=rules, cards=cards, players=players,
                      rotate_seats=True, threads=threads, progress=progress, cell=0)
        n = len(df)
        wins = np.array([df[f"win_{j}"].sum() for j in range(players)])
        for j, seat in enumerate(table):
            rows.append({"match": m, "seat": j, "policy": seat.label(), "games": n, "wins": wins[j]})
        if mode == "round_robin":
            # pairwise: within a game, each seat's win share counts against every other seat
            for a, b in itertools.permutations(range(players), 2):
                i, j = lineup[a], lineup[b]
                if i != j:
                    pair_wins[i, j] += wins[a]
                    pair_games[i, j] += n
    matches = pd.DataFrame(rows)
    lo, hi = wilson(matches["wins"], matches["games"])
    matches["win_rate"] = matches["wins"] / matches["games"]
    matches["win_lo"], matches["win_hi"] = lo, hi
    if mode == "field":
        cand = matches[matches["seat"] == 0]
        pair = pd.DataFrame({
            "policy": cand["policy"].to_numpy(),
            "opponent": field_seat.label(),
            "games": cand["games"].to_numpy(),
            "wins": cand["wins"].to_numpy(),
        })
        fair = 1.0 / players
        field_wins = matches[matches["seat"] > 0].groupby("match")["wins"].sum().to_numpy() / (players - 1)
        bt_wins = np.zeros((k + 1, k + 1))
        bt_wins[:k, k] = pair["wins"].to_numpy()
        bt_wins[k, :k] = field_wins
        ratings = bradley_terry(bt_wins, labels + [f"field: {field_seat.label()}"])
        pair["fair_share"] = fair
    else:
        pair_rows = []
        for i, j in itertools.permutations(range(k), 2):
            if pair_games[i, j] > 0:
                pair_rows.append({"policy": labels[i], "opponent": labels[j], "games": pair_games[i, j],
                                  "wins": pair_wins[i, j]})
        pair = pd.DataFrame(pair_rows)
        ratings = bradley_terry(pair_wins, labels)
    lo, hi = wilson(pair["wins"], pair["games"])
    pair["win_rate"] = pair["wins"] / pair["games"]
    pair["win_lo"], pair["win_hi"] = lo, hi
    return TournamentResult(g.name, players, mode, labels, matches, pair, ratings, seed)
