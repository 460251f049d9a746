"""Tournaments: every policy against every other, in every seat arrangement, on paired deals.

Each match plays ``simulate``'s games with ``seating="all"``: every deal is played once in every
distinct arrangement of the match's policies over the seats, and every match reuses the same cell seed
(common random numbers), so differences between policies are not drowned by deal luck, and no answer
depends on who sits to whose left.  Head-to-head rates and ratings come from the pairwise comparisons
inside each game (who finished ahead of whom), with the deal as the unit of replication.
"""

from __future__ import annotations

import itertools
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boardsim import rng, safe_io
from boardsim.cell import DEFAULT_CHUNK, check_entries, chunk_deals, deal_count
from boardsim.chunks import checksum, code_hash
from boardsim.cost import Bar
from boardsim.errors import BadParameter
from boardsim.games import get as get_game
from boardsim.games.base import Game, Seat, stable_hash
from boardsim.runner import MAX_GAMES, numba_threads, policies_cell, whole
from boardsim.scenario import TOURNAMENT_MODES, Scenario
from boardsim.seat import as_seat
from boardsim.stats.intervals import deal_interval, wilson
from boardsim.stats.metagame import DRAWS, Metagame, metagame
from boardsim.stats.ratings import bradley_terry
from boardsim.version import __version__

MODES = TOURNAMENT_MODES  # declared with the scenario keys, which a [tournament] table is checked against


class MatchStore:
    """Finished matches saved as they finish (``<out>/chunks/matches/``), so a killed tournament or ladder
    resumes where it stopped: a match is read back only when its digest (the code, the game, the seats,
    players, games, seed, rules, cards and seating) and a check sum of its numbers hold; anything else is
    played again.  A match is its sums per deal (``play_match``), all its results need."""

    def __init__(self, folder: str | Path, fresh: bool = False):
        self.folder = Path(folder)  # made with the first match saved: a run refused before it leaves nothing
        self.fresh = fresh  # read nothing back (a saved match is replaced when played again)
        self.loaded = 0
        self.saved = 0

    @staticmethod
    def digest(g: Game, seats: Sequence[Seat], games: int, seed: int, rules: Any, cards: Any, players: int,
               seating: str) -> str:
        table = cards.to_dict("list") if isinstance(cards, pd.DataFrame) else cards
        return stable_hash(FORMAT, __version__, code_hash(), g.name, [s.label() for s in seats], games, seed,
                           rules or {}, table or {}, players, seating)

    def load(self, digest: str) -> dict[str, np.ndarray] | None:
        path = self.folder / f"{digest}.npz"
        if self.fresh or not path.is_file() or path.is_symlink():
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {name: z[name] for name in z.files}
            # the chunk store's check: the digest inside and a checksum of every array (chunks.checksum)
            if str(arrays["meta.digest"]) != digest or str(arrays["meta.checksum"]) != checksum(arrays):
                return None
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error):
            return None
        self.loaded += 1
        return {name: a for name, a in arrays.items() if not name.startswith("meta.")}

    def save(self, digest: str, arrays: Mapping[str, np.ndarray]) -> None:
        if not self.saved:
            self.folder.parent.mkdir(parents=True, exist_ok=True)
            safe_io.real_dir(self.folder)
            safe_io.remove_stale_temps(self.folder)  # only those of runs that no longer run
        out = {**arrays, "meta.digest": np.array(digest)}
        out["meta.checksum"] = np.array(checksum(out))
        safe_io.write_with(self.folder / f"{digest}.npz", lambda f: np.savez_compressed(f, **out), sync=True)
        self.saved += 1


# games in one range of a match at most: its raw rows are held until they are added into the per-deal sums
RANGE_GAMES = 50_000
FORMAT = 3  # of a saved match: raise it when what a match keeps changes


def play_match(g: Game, games: int, seats: Sequence[Seat], seed: int, rules: Any, cards: Any, players: int,
               seating: str, threads: int | None, progress: Any, store: MatchStore | None,
               executor: Any = None) -> dict[str, np.ndarray]:
    """One match, ``games`` games rounded up to whole deals, as sums per deal over the deal's arrangements
    (``executors.per_deal``): ``win`` (deals, P), each slot's win shares, and ``ahead`` (deals, P, P), the
    comparisons slot a won against slot b (``comparisons``), with ``arrangements``; or the store's copy of
    them.  ``simulate``'s games (cell 0 of ``seed``).  ``progress`` (a callable, or False) hears the games as
    they finish, or a match read back at once."""
    from boardsim.executors import per_deal  # only here: `import boardsim` stays fast

    digest = MatchStore.digest(g, seats, games, seed, rules, cards, players, seating) if store else ""
    arrays = store.load(digest) if store is not None else None
    heard = progress if callable(progress) else None
    if arrays is None:
        whole(games, "games", 1, MAX_GAMES)
        whole(seed, "seed", 0, rng.MAX_SEED)
        table = cards if isinstance(cards, pd.DataFrame) else g.card_table(cards)
        cell = policies_cell(g, players, list(seats), rules, table, seating_design=seating)  # errors as simulate's
        deals = deal_count(games, cell)
        n_arr = len(cell.prepared)
        size = min(chunk_deals(cell, deals, DEFAULT_CHUNK), g.max_chunk_deals, max(1, RANGE_GAMES // n_arr))

        def sums(raw: Mapping[str, np.ndarray]) -> np.ndarray:
            win = raw["win"]
            ahead = comparisons(win, raw["score"], range(players), players).reshape(len(win), players * players)
            return np.concatenate([win, ahead], axis=1)

        with numba_threads(threads):
            both = per_deal(cell, rng.cell_key(seed, 0), 0, deals, sums, size, executor, heard)
        arrays = {"win": both[:, :players], "ahead": both[:, players:].reshape(-1, players, players),
                  "arrangements": np.int64(n_arr)}
        if store is not None:
            store.save(digest, arrays)
    elif heard is not None:
        heard(len(arrays["win"]) * int(arrays["arrangements"]))
    return arrays


@dataclass
class TournamentResult:
    """Tables of one tournament (all tidy DataFrames)."""

    game: str
    players: int
    mode: str
    policies: list[str]
    matches: pd.DataFrame  # one row per match x seat
    pairwise: pd.DataFrame  # one row per (policy, opponent)
    ratings: pd.DataFrame  # Bradley-Terry, one row per policy, strongest first
    seed: int
    cycles: pd.DataFrame = dc_field(default_factory=pd.DataFrame)  # non-transitive triples (intervals exclude 0.5)
    # per deal, how often each policy's seat finished ahead of each other's (comparisons): what ``meta`` reads
    per_deal: np.ndarray | None = None

    def matrix(self, value: str = "win_rate") -> pd.DataFrame:
        """Policy x opponent table of ``value`` (``win_rate``, ``win_lo``, ``win_hi``, ``games``)."""
        return self.pairwise.pivot(index="policy", columns="opponent", values=value).reindex(
            index=self.policies, columns=self.policies
        )


def lineups(labels: list[str], players: int, mode: str, field: str | None) -> list[tuple[int, ...]]:
    k = len(labels)
    if mode == "field":
        if field is None:
            raise BadParameter("field", "a one-vs-field tournament needs a field policy")
        return [(i,) for i in range(k)]
    if k < 2:
        raise BadParameter("policies", "a round robin needs at least two policies")
    if k >= players:
        return list(itertools.combinations(range(k), players))
    # fewer policies than seats: every multiset of the policies that uses each at least once
    combos = itertools.combinations_with_replacement(range(k), players)
    return [c for c in combos if len(set(c)) >= 2]


def comparisons(win: np.ndarray, score: np.ndarray, items: Sequence[int], k: int) -> np.ndarray:
    """(games, k, k) comparisons inside each game: ``[g, i, j]`` = 1 when item i's seat finished ahead of
    item j's (a larger win share, then a higher score), 0.5 for a dead heat, summed over seat pairs.

    ``items[s]`` is the item (policy index) of slot ``s``; seats of the same item are not compared.
    """
    n, P = win.shape
    out = np.zeros((n, k, k))
    for a, b in itertools.permutations(range(P), 2):
        i, j = items[a], items[b]
        if i == j:
            continue
        ahead = (win[:, a] > win[:, b]) | ((win[:, a] == win[:, b]) & (score[:, a] > score[:, b]))
        tie = (win[:, a] == win[:, b]) & (score[:, a] == score[:, b])
        out[:, i, j] += ahead + 0.5 * tie
    return out


def pairwise_table(per_deal: np.ndarray, names: Sequence[str], games: np.ndarray,
                   confidence: float = 0.95) -> pd.DataFrame:
    """Row policy's share of head-to-head comparisons won against each opponent, with a deal-clustered
    interval: a Wilson interval at the effective sample size ``rate (1 - rate) / se**2``, where ``se`` is
    the ratio estimator's standard error over deals (the design effect of comparisons that share a
    game or a deal).  When every deal went one way (``se`` = 0) each deal counts once.
    """
    rows = []
    k = len(names)
    for i, j in itertools.permutations(range(k), 2):
        y = per_deal[:, i, j]
        x = y + per_deal[:, j, i]
        met = x > 0
        d = int(met.sum())
        if d == 0:
            continue
        y, x = y[met], x[met]
        rate = y.sum() / x.sum()
        resid = y - rate * x
        se = np.sqrt((resid * resid).sum() * d / max(d - 1, 1)) / x.sum()
        n_eff = min(float(x.sum()), rate * (1.0 - rate) / (se * se)) if se > 0 else float(d)
        lo, hi = wilson(rate * n_eff, n_eff, confidence)
        rows.append({"policy": names[i], "opponent": names[j], "games": int(games[i, j]), "deals": d,
                     "comparisons": float(x.sum()), "wins": float(y.sum()), "win_rate": rate,
                     "effective_n": n_eff, "win_lo": float(lo), "win_hi": float(hi)})
    return pd.DataFrame(rows)


def cycles(pairwise: pd.DataFrame) -> pd.DataFrame:
    """Non-transitive triples a > b > c > a where every pairwise interval excludes 0.5."""
    beats = {(r.policy, r.opponent): r for r in pairwise.itertuples() if r.win_lo > 0.5}
    names = sorted(set(pairwise["policy"]))
    rows = []
    for a, b, c in itertools.permutations(names, 3):
        if a != min(a, b, c):
            continue  # each cycle once, starting from its first name
        if (a, b) in beats and (b, c) in beats and (c, a) in beats:
            rows.append({"a": a, "b": b, "c": c, "a_vs_b": beats[a, b].win_rate, "b_vs_c": beats[b, c].win_rate,
                         "c_vs_a": beats[c, a].win_rate})
    return pd.DataFrame(rows, columns=["a", "b", "c", "a_vs_b", "b_vs_c", "c_vs_a"])


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
    progress: bool | None | Callable[[int], Any] = None,
    seating: str = "all",
    store: MatchStore | None = None,
    executor: Any = None,
) -> TournamentResult:
    """Round robin (every combination of ``players`` distinct policies) or one-vs-field
    (each policy in one seat against ``field`` in the others); ``games`` per match.

    Every match plays each deal in every distinct seat arrangement (``seating``), and all matches share
    the same deals.  Ratings are Bradley-Terry on the pairwise comparisons inside each game (who finished
    ahead of whom), with a weak prior and deal-clustered intervals (``ratings.bradley_terry``).
    With ``store``, each finished match is saved and a rerun reads back the matches it finds.  ``executor``:
    where the matches' games run (an open ``Executor``: processes or Dask); the result does not depend on it.
    """
    g = get_game(game) if isinstance(game, str) else game
    if mode not in MODES:
        raise BadParameter("mode", f"unknown mode {mode!r} (known: {', '.join(MODES)})")
    g.check_players(players)
    seats = [as_seat(p) for p in policies]
    labels = [s.label() for s in seats]
    if len(set(labels)) != len(labels):
        raise BadParameter("policies", "each policy may appear only once")
    field_seat = as_seat(field) if field is not None else None
    # every policy checked alone before any match plays: an error names the entry the caller wrote
    entries = [(f"policies[{i}]", s) for i, s in enumerate(seats)]
    entries += [("field", field_seat)] if field_seat is not None else []
    table = cards if isinstance(cards, pd.DataFrame) else g.card_table(cards)
    check_entries(g, players, entries, rules, table, BadParameter, params=False)
    names = labels + ([f"field: {field_seat.label()}"] if mode == "field" and field_seat is not None else [])
    k = len(names)
    plan = lineups(labels, players, mode, field_seat and field_seat.label())
    # one bar over every match (the per-match bars showed only the first, then minutes of silence)
    with Bar(progress is not False and not callable(progress), len(plan) * games, "tournament") as bar:
        moved = progress if callable(progress) or progress is False else bar.update
        matches, per_deal, pair_games = _play(g, plan, seats, field_seat, mode, k, players, games, seed, rules,
                                              cards, threads, moved, seating, store, executor)
    pair = pairwise_table(per_deal, names, pair_games)
    if mode == "field":
        pair = pair[pair["policy"] != names[-1]].reset_index(drop=True)
        pair["fair_share"] = 0.5
    ratings = bradley_terry(per_deal.sum(axis=0), names, per_deal)
    return TournamentResult(g.name, players, mode, labels, matches, pair, ratings, seed, cycles(pair),
                            per_deal if mode == "round_robin" else None)


def _play(g: Game, lineups: list[tuple[int, ...]], seats: list[Seat], field_seat: Seat | None, mode: str, k: int,
          players: int, games: int, seed: int, rules: Any, cards: Any, threads: int | None, progress: Any,
          seating: str, store: MatchStore | None = None,
          executor: Any = None) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Every match on the same deals: its seats' rows, the per-deal comparison counts and games per pair."""
    rows = []
    per_deal = np.zeros((0, k, k))
    pair_games = np.zeros((k, k))
    for m, lineup in enumerate(lineups):
        if mode == "field":
            table: list[Seat] = [seats[lineup[0]]] + [field_seat] * (players - 1)
            items = [lineup[0]] + [k - 1] * (players - 1)
        else:
            table = [seats[i] for i in lineup]
            items = list(lineup)
        # a policy against a field of itself: under "all" its seats are interchangeable, so one arrangement
        # would leave the policy's slot in the first position every deal and read the first-player edge
        # as its rate against the field; every rotation puts that slot in each position once
        same = mode == "field" and seating == "all" and len({s.label() for s in table}) == 1
        match = play_match(g, games, table, seed, rules, cards, players, "cyclic" if same else seating, threads,
                           progress, store, executor)
        win, ahead, n_arr = match["win"], match["ahead"], int(match["arrangements"])
        n_deals = len(win)
        if n_deals > len(per_deal):
            per_deal = np.concatenate([per_deal, np.zeros((n_deals - len(per_deal), k, k))])
        for a, b in itertools.permutations(range(players), 2):  # slots to policies; a policy's own seats apart
            if items[a] != items[b]:
                per_deal[:n_deals, items[a], items[b]] += ahead[:, a, b]
        present = sorted(set(items))
        for i, j in itertools.permutations(present, 2):
            pair_games[i, j] += n_deals * n_arr
        for j, seat in enumerate(table):
            mean, lo, hi = _seat_rate(win[:, j] / n_arr)
            rows.append({"match": m, "seat": j, "policy": seat.label(), "games": n_deals * n_arr, "deals": n_deals,
                         "wins": win[:, j].sum(), "win_rate": mean, "win_lo": lo, "win_hi": hi})
    return pd.DataFrame(rows), per_deal, pair_games


def _seat_rate(y: np.ndarray) -> tuple[float, float, float]:
    """A seat's win share with a t interval over its per-deal means ``y`` (its games share deals)."""
    mean, lo, hi = deal_interval(y.sum(), (y * y).sum(), len(y), 1.0)
    return float(mean), float(np.clip(lo, 0, 1)), float(np.clip(hi, 0, 1))


def run_scenario_tournament(sc: Scenario, threads: int | None, progress: bool | None,
                            store: MatchStore | None = None) -> TournamentResult:
    """The tournament a scenario's ``[tournament]`` table asks for, on the scenario's seed, rules and cards."""
    t = sc.tournament
    return run_tournament(sc.game, t["policies"], players=t["players"], games=t["games"], seed=sc.seed,
                          mode=t["mode"], field=t["field"], rules=sc.rules, cards=sc.cards, threads=threads,
                          progress=progress, seating=t.get("seating", "all"), store=store)


def write_tournament(result: TournamentResult, out_dir: Path) -> None:
    """The tournament's tidy tables; build_report draws the heat map and ratings from them."""
    safe_io.write_csv(result.pairwise, out_dir / "tournament_pairwise.csv")
    safe_io.write_csv(result.ratings, out_dir / "tournament_ratings.csv")
    safe_io.write_csv(result.matches, out_dir / "tournament_matches.csv")
    safe_io.write_csv(result.cycles, out_dir / "tournament_cycles.csv")
    if result.per_deal is not None:
        write_metagame(result.per_deal, result.policies, out_dir, result.seed)


PER_DEAL = "tournament_per_deal.npz"  # a round robin's per-deal comparisons (``meta`` reads them back)


def write_metagame(per_deal: np.ndarray, names: Sequence[str], out_dir: Path, seed: int, draws: int = DRAWS,
                   keep: bool = True) -> Metagame:
    """A round robin's metagame (stats.metagame), written as meta_shares.csv, meta_split.csv and
    meta_replicator.csv; with ``keep``, also its per-deal comparisons (PER_DEAL), which ``meta`` reads."""
    if keep:
        def fill(f: Any) -> None:
            np.savez_compressed(f, per_deal=np.asarray(per_deal, dtype=np.float64), names=np.asarray(list(names)),
                                seed=np.int64(seed))

        safe_io.write_with(out_dir / PER_DEAL, fill)
    mg = metagame(per_deal, names, seed, draws)
    safe_io.write_csv(mg.shares, out_dir / "meta_shares.csv")
    safe_io.write_csv(mg.split, out_dir / "meta_split.csv")
    safe_io.write_csv(mg.trajectory, out_dir / "meta_replicator.csv")
    return mg
