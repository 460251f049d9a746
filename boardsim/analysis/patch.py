"""A balance patch: the fewest card edits that leave no card (or first player) measurably unfair.

The objective of a card table is the largest |effect| over its *tests*:

- a card test (base player, player count, card): the card's strength, measured exactly as ``cards`` measures
  it, on the same deals: its swing (the win share of a seat that hires it whenever it can minus that of a
  seat that never hires it, the base player in every other seat and otherwise in the measured one) minus
  the mean swing of the market's cards (docs/guide/measure-a-card.md);
- a first-player test (base player, player count): the first player's win rate in self-play minus 1/P.

- a feel test (base player, player count, target): a feel figure of self-play (docs/guide/feel.md), such as
  ``comeback_rate>=0.2``, its effect how far the figure falls short of the target (0 when it is met);
- a metagame test (target): ``nash_support`` or ``alpha_entropy`` of the base players' head-to-head table at
  2 players (docs/guide/metagame.md), its effect the shortfall likewise.

``objective = "cards"`` takes the card tests, ``"first_player"`` the first-player tests, ``"both"`` all; feel
targets join with ``+`` (``"cards+comeback_rate>=0.2"``) or stand alone (``"lead_changes>=2"``).

The search (``search_patch``):

1. measures today's table on the search deals;
2. each round, measures the dose-response of the worst items (a card's own tests at its field's value
   +-1, or the first-player tests for a field that moves the first player), predicts each item's best value
   within ``span`` from that slope, and builds candidates: the current patch plus one such edit (the
   predicted value and its neighbours), and joint edits of the two or three most promising items;
3. races the candidates by successive halving on common deals: every candidate plays the same deals, a
   quarter of them first; the better half goes on to half the deals, the better half of those to all;
4. accepts the best candidate when it beats the current patch on the same deals (``rank``: the worst
   |effect| may not rise more than SLACK above the best reached, and within that the soft maximum, the 4-power
   mean of the effects, must fall by more than GAIN; within GAIN, fewer edited cards win), until ``max_edits``
   or no gain; then drops any edit whose removal costs nothing.

Search and verification play disjoint deal ranges of one cell key: the search deals ``0 .. D-1`` (D per
player count), the verification deals ``D .. 2D-1``, so the verdict never reuses a deal the search chose on.

Every measured segment (a table's tests on one deal range) is an exact integer sum, so the result does not
depend on the executor, chunking or thread count; each is saved under ``<out>/chunks/`` as it finishes, so a
rerun after Ctrl-C loads what was done and takes the same path to the same patch.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from boardsim import rng, safe_io
from boardsim.analysis.balance import flag_effects
from boardsim.cell import Cell, make_cell
from boardsim.errors import BadInput
from boardsim.games.base import WIN_UNITS, Game, Seat, stable_hash
from boardsim.report.tables import FIRST, TARGET_KINDS
from boardsim.stats import feel as F
from boardsim.stats import metagame as MG
from boardsim.stats.intervals import mean_var

OBJECTIVES = ("cards", "first_player", "both")
RUNGS = (0.25, 0.5, 1.0)  # successive halving: the share of the search deals each round of the race plays
CHUNK_DEALS = 2048  # deals per executor task: any split gives the same sums; large calls keep the per-call cost small
TARGETS = 6  # worst items whose dose-response each round measures
JOINT = 3  # the most promising items combined into joint moves of two and three
SLACK = 0.005  # a candidate may leave the worst |effect| this far above the best reached (about one test's noise)
POWER = 4  # of the soft maximum that ranks candidates within the slack
GAIN = 0.02  # a relative change of the soft maximum smaller than this is a tie: the patch with fewer edits wins
CELL_TABLES = 24  # tables whose cells a Measurer keeps (a round races about 20 candidates; ~2 MB a table)
PAIR_SUMS = 6  # a metagame test's sums per pair of base players (Measurer._pair)
META_DRAWS = 200  # parametric bootstrap draws of a metagame figure's interval
FEEL_UNIT = 10_000  # a feel test sums each game's value in these units, rounded: exact integer sums, any chunking
FORMAT = 2  # of a saved measurement (in its digest): raise it when what a measurement sums changes
# (2: a card test sums its swing, favouring minus avoiding arm, and the swing centred on its group's mean)

Edits = tuple[tuple[str, str, int], ...]  # ((item, field, new value), ...) sorted: a patch, hashable


@dataclass(frozen=True)
class Test:
    base: int  # index into the bases
    players: int
    card: str | None  # None: the first-player test, or a feel test
    target: F.Target | None = None  # a feel test's target (card None)

    @property
    def kind(self) -> str:
        if self.card is not None:
            return "card"
        if self.target is None:
            return "first_player"
        return "meta" if self.target.metric in MG.TARGET_METRICS else "feel"

    @property
    def label(self) -> str:
        """The test's name in the tables' ``card`` column."""
        return self.card if self.card is not None else self.target.label() if self.target is not None else FIRST


def parse_objective(text: str) -> tuple[str, tuple[F.Target, ...]]:
    """``"cards"``, ``"first_player"``, ``"both"``, feel targets, or one of the three then ``+`` targets ->
    (the card and first-player part, "" for none; the feel targets).  ValueError says what is allowed."""
    parts = [p.strip() for p in str(text).split("+")]
    judged = parts.pop(0) if parts and parts[0] in OBJECTIVES else ""
    if not parts and not judged:
        raise ValueError(f"got {text!r}; allowed: {', '.join(OBJECTIVES)}, feel targets such as "
                         "comeback_rate>=0.2, or one of the three then + targets")
    targets = tuple(F.parse_target(p, MG.TARGET_METRICS) for p in parts)
    if len({t.metric for t in targets}) < len(targets):
        raise ValueError(f"got {text!r}: one target per feel metric")
    return judged, targets


@dataclass
class Problem:
    """What is patched and how it is judged."""

    game: Game
    counts: list[int]
    bases: list[Seat]
    objective: str
    games: int
    seed: int
    span: int
    max_edits: int
    fields: list[str]
    rules: dict[str, Any] = field(default_factory=dict)
    card_file: Any = None
    start_edits: dict[str, dict[str, Any]] = field(default_factory=dict)  # a scenario's [cards]
    seating: str = "all"
    judges: int = 0  # the last ``judges`` bases judge the patch on the fresh deals only (not searched under)
    cards: list[str] = field(default_factory=list)  # the cards with tests
    items: dict[tuple[str, str], int] = field(default_factory=dict)  # (item, field) -> today's value
    judged: str = field(default="", init=False)  # the objective's card and first-player part ("" for none)
    targets: tuple[F.Target, ...] = field(default=(), init=False)  # its feel targets

    def __post_init__(self) -> None:
        self.judged, self.targets = parse_objective(self.objective)
        today = self.table(())
        if self.judges_cards:
            self.cards = self.game.market_cards(today)
        self.items = {(i, f): v for i, f, v in self.game.patch_fields(today) if f in self.fields}

    @property
    def judges_cards(self) -> bool:
        return self.judged in ("cards", "both")

    @property
    def judges_first(self) -> bool:
        return self.judged in ("first_player", "both")

    # -- tables -------------------------------------------------------------------
    def edits_dict(self, edits: Edits) -> dict[str, dict[str, Any]]:
        merged = {k: dict(v) for k, v in self.start_edits.items()}
        for item, fld, value in edits:
            merged.setdefault(item, {})[fld] = int(value)
        return merged

    def table(self, edits: Edits) -> pd.DataFrame:
        return self.game.card_table(self.edits_dict(edits) or None, self.card_file)

    def valid(self, edits: Edits) -> bool:
        try:
            self.table(edits)
        except BadInput:
            return False
        return True

    # -- tests and deals ----------------------------------------------------------
    @property
    def tests(self) -> list[Test]:
        """The tests the search scores: every base player's but the judges'."""
        return [t for t in self.all_tests if t.base < len(self.bases) - self.judges]

    @property
    def all_tests(self) -> list[Test]:
        """The tests the verification scores: every base player's, judges included."""
        out = []
        for b in range(len(self.bases)):
            for n in self.counts:
                if self.judges_cards:
                    out += [Test(b, n, c) for c in self.cards]
                if self.judges_first:
                    out.append(Test(b, n, None))
                out += [Test(b, n, None, t) for t in self.targets if t.metric not in MG.TARGET_METRICS]
        # a metagame target is one test: the searched base players' head-to-head table at 2 players
        out += [Test(0, 2, None, t) for t in self.targets if t.metric in MG.TARGET_METRICS]
        return out

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The pairs of searched base players a metagame test plays (none without a metagame target), in the
        order of their labels: the bootstrap draws pair by pair, so the figure's interval must not depend on the
        order the bases were listed in."""
        if not any(t.metric in MG.TARGET_METRICS for t in self.targets):
            return []
        return list(itertools.combinations(self.meta_bases, 2))

    @property
    def meta_bases(self) -> list[int]:
        """The searched base players, in the order of their labels."""
        return sorted(range(len(self.bases) - self.judges), key=lambda b: self.bases[b].label())

    @property
    def width(self) -> int:
        """Sums per test: Y, Y^2, deals, Z, Z^2, then a metagame test's PAIR_SUMS per pair."""
        return 5 + PAIR_SUMS * len(self.pairs)

    def deals(self, n: int) -> int:
        """Search deals per test at ``n`` players: ``games`` games per favouring arm (n arrangements a deal), or
        ``games`` self-play games when no card is judged (first player, feel)."""
        return -(-self.games // n) if self.judges_cards else self.games

    def segment(self, name: str, n: int) -> tuple[int, int]:
        """(first deal, count) of a named deal range at ``n`` players: ``search0..2`` (the race's rungs),
        ``search`` (all search deals) or ``verify`` (as many fresh deals, after the search's)."""
        d = self.deals(n)
        if name == "verify":
            return d, d
        if name == "search":
            return 0, d
        r = int(name[len("search"):])
        lo = math.ceil(d * RUNGS[r - 1]) if r else 0
        return lo, math.ceil(d * RUNGS[r]) - lo

    def seats(self, test: Test, avoid: bool = False) -> list[Seat]:
        """A test's lineup: self-play for the first-player and feel tests; for a card test the favouring seat
        (``avoid``: the avoiding seat) beside the base player."""
        base = self.bases[test.base]
        if test.card is None:
            return [base] * test.players
        seat = self.game.avoid(test.card, base) if avoid else self.game.favour(test.card, base)
        return [seat] + [base] * (test.players - 1)

    def facts(self) -> dict[str, Any]:
        from boardsim.chunks import code_hash
        from boardsim.version import __version__

        return {"format": FORMAT, "boardsim": __version__, "code": code_hash(), "game": self.game.name,
                "rules": self.rules,
                "bases": [b.label() for b in self.bases], "judges": self.judges, "seed": self.seed,
                "seating": self.seating}


class Sums:
    """Per-test exact sums over deals, in win units (WIN_UNITS x share, summed over a deal's arrangements):
    Y, Y squared, deals, then Z and Z squared.  A first-player test's Y is the first player's units; a card
    test's Y is its swing (favouring minus avoiding arm) and Z = k Y - (the sum of Y over the k market cards
    of its base and count on the same deal): k times its strength, when every card of its group was measured
    on these deals (``centred``), else 0.  A feel test's Y is its game's figure in FEEL_UNIT (a self-play deal is
    one game), its deals those whose game defines the figure (comebacks: a decided game)."""

    def __init__(self, tests: Sequence[Test], values: np.ndarray | None = None, centred: bool = False,
                 width: int = 5):
        self.tests = list(tests)
        self.values = np.zeros((len(self.tests), width), dtype=np.int64) if values is None else values
        self.centred = centred

    def __add__(self, other: Sums) -> Sums:
        return Sums(self.tests, self.values + other.values, self.centred and other.centred)

    def frame(self, problem: Problem, confidence: float = 0.95,
              reference: dict[tuple[str, int], float] | None = None) -> pd.DataFrame:
        """One row per test: effect, its t interval and p-value, deals.  A first-player test's effect is the
        first player's share minus 1/P; a card test's its strength: from Z when centred, else its swing minus
        ``reference[(base label, players)]`` (the group's mean swing, from a centred frame's ``swing_ref``;
        the interval is then the swing's alone)."""
        card = np.array([t.card is not None for t in self.tests])
        players = np.array([t.players for t in self.tests], dtype=float)
        k = float(len(problem.cards)) or 1.0
        scale = np.where(card, players, 1.0) * WIN_UNITS  # a deal's win units over its arrangements, per share
        v = self.values
        mean_y, var_y, d = mean_var(v[:, 0], v[:, 1], v[:, 2])
        swing = mean_y / scale
        labels = [problem.bases[t.base].label() for t in self.tests]
        if self.centred:
            mean_z, var_z, _ = mean_var(v[:, 3], v[:, 4], v[:, 2])
            effect = np.where(card, mean_z / (k * scale), swing - 1.0 / players)
            se = np.where(card, np.sqrt(var_z / d) / (k * scale), np.sqrt(var_y / d) / scale)
            ref = np.where(card, swing - effect, np.nan)
        else:
            ref = np.array([(reference or {}).get((b, t.players), np.nan) if t.card is not None else np.nan
                            for b, t in zip(labels, self.tests, strict=True)])
            if card.any() and np.isnan(ref[card]).any():
                raise ValueError("a card test measured without its whole group needs the group's reference swing")
            effect = np.where(card, swing - ref, swing - 1.0 / players)
            se = np.sqrt(var_y / d) / scale
        feel = np.full(len(self.tests), np.nan)  # a feel test's figure; its effect the shortfall from the target
        for i, t in enumerate(self.tests):
            if t.kind == "feel":
                feel[i] = mean_y[i] / FEEL_UNIT
                effect[i] = float(t.target.shortfall(feel[i]))
                se[i] = math.sqrt(var_y[i] / d[i]) / FEEL_UNIT if d[i] > 0 else math.nan
        df = np.maximum(d - 1, 1)
        h = stats.t.ppf(0.5 + confidence / 2, df) * se
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(se > 0, 2 * stats.t.sf(np.abs(effect) / se, df), (effect == 0.0).astype(float))
        feel_h = np.where(np.isnan(feel), np.nan, h)
        feel_lo, feel_hi = feel - feel_h, feel + feel_h
        effect_lo, effect_hi = effect - h, effect + h
        for i, t in enumerate(self.tests):  # a metagame figure: its parametric bootstrap interval and p-value
            if t.kind == "meta":
                feel[i], feel_lo[i], feel_hi[i], p[i] = meta_figure(t.target, self.values[i, 5:], confidence)
                effect[i] = float(t.target.shortfall(feel[i]))
                effect_lo[i], effect_hi[i] = sorted(float(t.target.shortfall(x)) for x in (feel_lo[i], feel_hi[i]))
                # the objective's simultaneous interval reads a half-width from se: the wider side's, as a normal's
                se[i] = max(effect[i] - effect_lo[i], effect_hi[i] - effect[i]) / stats.norm.ppf(0.5 + confidence / 2)
                labels[i] = " vs ".join(problem.bases[b].label() for b in problem.meta_bases)
        games = d * np.where(card, 2 * players, 1)
        games[np.array([t.kind == "meta" for t in self.tests], dtype=bool)] *= 2 * max(1, len(problem.pairs))
        return pd.DataFrame({"base": labels, "players": [t.players for t in self.tests],
                             "card": [t.label for t in self.tests], "kind": [t.kind for t in self.tests],
                             "effect": effect, "effect_lo": effect_lo, "effect_hi": effect_hi, "se": se,
                             "p_value": p, "swing": np.where(card, swing, np.nan), "swing_ref": ref, "feel": feel,
                             "feel_lo": feel_lo, "feel_hi": feel_hi,
                             "deals": d.astype(int), "games": games.astype(int)})


def references(frame: pd.DataFrame) -> dict[tuple[str, int], float]:
    """Each (base, players) group's mean swing (``swing_ref``) from a centred frame's card rows."""
    cards = frame[frame["kind"] == "card"]
    return {(b, int(n)): float(r) for b, n, r in zip(cards["base"], cards["players"], cards["swing_ref"], strict=True)}


def soft_max(frame: pd.DataFrame) -> float:
    """The power mean (mean |effect|**POWER)**(1/POWER): near the worst |effect| when one test dominates, and
    lower for every unfair test that is fixed, so it rewards fixing the second worst card as well as the worst."""
    e = np.abs(frame["effect"].to_numpy(float))
    return float(np.mean(e**POWER) ** (1 / POWER)) if len(e) else 0.0


def rank(frame: pd.DataFrame, ref: float) -> tuple[int, float, float]:
    """The search's order of tables, best first.  A table whose objective (worst |effect|) is at most SLACK above
    ``ref``, the best objective the accepted patches reached, ranks by its soft maximum; any other ranks after
    it, by its objective.  The objective alone stops improving as soon as the worst card can fall no further,
    while the other unfair cards stay as they are; the soft maximum goes on fixing them without letting the
    worst effect grow."""
    worst = objective_of(frame)
    return (0, 0.0, soft_max(frame)) if worst <= ref + SLACK else (1, worst, soft_max(frame))


def objective_of(frame: pd.DataFrame) -> float:
    return float(frame["effect"].abs().max()) if len(frame) else 0.0


def objective_interval(frame: pd.DataFrame, confidence: float = 0.95) -> tuple[float, float]:
    """A simultaneous interval for max |effect| over the tests: Bonferroni intervals for every test at once
    (each at 1 - (1 - confidence)/T), then [max of the lower bounds of |effect|, max of the upper bounds].
    When every interval covers its effect, as it does with probability >= ``confidence``, the interval
    covers the true maximum."""
    if not len(frame):
        return 0.0, 0.0
    T = len(frame)
    q = 1 - (1 - confidence) / T
    h = np.array([stats.t.ppf(0.5 + q / 2, max(d - 1, 1)) for d in frame["deals"]]) * frame["se"].to_numpy()
    e = frame["effect"].to_numpy()
    lo_abs = np.maximum(np.abs(e) - h, 0.0)
    hi_abs = np.abs(e) + h
    return float(lo_abs.max()), float(hi_abs.max())


class Measurer:
    """Plays a table's tests on a named deal range, through an executor, saving each result as it finishes."""

    def __init__(self, problem: Problem, executor: Any = None, folder: Path | None = None,
                 on_games: Callable[[int], None] | None = None, fresh: bool = False):
        self.problem = problem
        self.fresh = fresh  # play everything again, replacing what an earlier run saved
        self.executor = executor
        self.folder = folder
        self.key = rng.cell_key(problem.seed, 0)  # one key: every table and test plays the same deals
        self.facts = stable_hash(problem.facts())
        self.on_games = on_games
        self.games = 0  # games played here (not loaded)
        self.loaded = 0
        self.memo: dict[tuple, Sums] = {}
        # each table's card table and cells, for its next segment: a race measures a candidate on up to three
        # segments and building a cell costs milliseconds (FlipToons 3p: 6 ms), about a quarter of a search's time
        self.cells: OrderedDict[Edits, tuple[pd.DataFrame, dict[Test, tuple[Cell, ...]]]] = OrderedDict()
        if folder is not None:
            safe_io.real_dir(folder.parent)
            safe_io.real_dir(folder)
            safe_io.remove_stale_temps(folder)

    def measure(self, edits: Edits, segment: str, tests: Sequence[Test] | None = None) -> Sums:
        p = self.problem
        tests = list(p.tests if tests is None else tests)
        memo_key = (edits, segment, tuple(tests))
        if memo_key in self.memo:
            return self.memo[memo_key]
        table, cells = self._cells(edits)
        digest = stable_hash(self.facts, table.to_dict("list"), table.attrs, segment,
                             [(t.base, t.players, t.card) + ((t.target.label(),) if t.target else ()) for t in tests],
                             [p.segment(segment, n) for n in p.counts])
        path = self.folder / f"{digest}.json" if self.folder is not None else None
        sums = self._load(path, tests, digest)
        if sums is None:
            sums = Sums(tests, width=p.width)
            swings: dict[Test, np.ndarray] = {}
            for i, t in enumerate(tests):
                if t.kind == "meta":
                    sums.values[i, 2] = p.segment(segment, 2)[1]
                    for k, pair in enumerate(p.pairs):
                        sums.values[i, 5 + PAIR_SUMS * k:5 + PAIR_SUMS * (k + 1)] = self._pair(table, pair, segment)
                    continue
                if t not in cells:
                    cells[t] = tuple(make_cell(p.game, t.players, p.seats(t, avoid), p.rules, table,
                                               seating_design=p.seating) for avoid in ((False, True) if t.card
                                                                                       else (False,)))
                first, count = p.segment(segment, t.players)
                if t.target is not None:
                    sums.values[i, :3] = self._feel(cells[t][0], first, count, t.target)
                    continue
                if t.card is None:
                    sums.values[i, :3] = self._play(cells[t][0], first, count)
                    continue
                y = swings[t] = self._units(cells[t][0], first, count) - self._units(cells[t][1], first, count)
                sums.values[i, :3] = (int(y.sum()), int((y * y).sum()), y.size)
            sums.centred = centre(tests, swings, p.cards, sums.values)
            if path is not None:
                values = sums.values.tolist()
                safe_io.write_text(path, json.dumps({"digest": digest, "values": values, "centred": sums.centred,
                                                     "check": stable_hash(digest, values, sums.centred)}))
        self.memo[memo_key] = sums
        return sums

    def _load(self, path: Path | None, tests: list[Test], digest: str) -> Sums | None:
        """The saved measurement, only when it is the one asked for (its digest) and intact (its check sum of
        the digest and the numbers): a file renamed, copied from another run, edited or cut short is played
        again, never read."""
        if path is None or self.fresh or not path.is_file() or path.is_symlink():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            raw, centred = data["values"], data["centred"]
            if data["digest"] != digest or data["check"] != stable_hash(digest, raw, centred):
                return None
            values = np.array(raw, dtype=np.int64)
        except (OSError, ValueError, KeyError, TypeError, OverflowError):
            return None
        if values.shape != (len(tests), self.problem.width) or not isinstance(centred, bool):
            return None
        self.loaded += 1
        return Sums(tests, values, centred)

    def _cells(self, edits: Edits) -> tuple[pd.DataFrame, dict[Test, tuple[Cell, ...]]]:
        """The table of ``edits`` and the cells built for it so far (the CELL_TABLES most recent tables)."""
        if edits in self.cells:
            self.cells.move_to_end(edits)
        else:
            self.cells[edits] = (self.problem.table(edits), {})
            if len(self.cells) > CELL_TABLES:
                self.cells.popitem(last=False)
        return self.cells[edits]

    def _units(self, cell: Cell, start: int, count: int) -> np.ndarray:
        """Per deal of ``start .. start + count - 1``, seat 0's win units summed over the cell's arrangements."""
        from boardsim.executors import per_deal

        return per_deal(cell, self.key, start, count, lambda raw: _win_units(raw)[:, 0], CHUNK_DEALS, self.executor,
                        self._count)

    def _count(self, games: int) -> None:
        self.games += games
        if self.on_games is not None:
            self.on_games(games)

    def _pair(self, table: pd.DataFrame, pair: tuple[int, int], segment: str) -> np.ndarray:
        """One pair of base players head to head at 2 players on the segment's deals (pair_sums)."""
        p = self.problem
        start, count = p.segment(segment, 2)
        out, games = pair_sums(p.game, p.bases[pair[0]], p.bases[pair[1]], p.rules, table, self.key, start, count,
                               p.seating, self.executor, self.on_games)
        self.games += games
        return out

    def _feel(self, cell: Cell, start: int, count: int, target: F.Target) -> np.ndarray:
        """(sum, sum of squares, deals) of the target's figure in FEEL_UNIT over the deals whose games define it:
        each deal's mean (a self-play deal is one game)."""
        num, den = deal_figures(cell, self.key, start, count, target.metric, self.executor, self.on_games)
        self.games += len(cell.prepared) * count
        ok = den > 0
        y = np.rint(num[ok] / den[ok] * FEEL_UNIT).astype(np.int64)
        return np.array([y.sum(), (y * y).sum(), y.size], dtype=np.int64)

    def _play(self, cell: Cell, start: int, count: int) -> np.ndarray:
        from boardsim.executors import play_ranges, split_range

        ranges = split_range(start, count, CHUNK_DEALS)
        out = np.zeros(3, dtype=np.int64)
        for _, agg in play_ranges(cell, self.key, ranges, self.executor, reduce=True):
            out += (int(agg.wins[0]), int(agg.deal_win_sq[0]), int(agg.deals))
            self.games += agg.games
            if self.on_games is not None:
                self.on_games(agg.games)
        return out


def _win_units(raw: Mapping[str, np.ndarray]) -> np.ndarray:
    """Each game's win shares in whole WIN_UNITS (rows the games, columns the slots)."""
    return np.rint(raw["win"] * WIN_UNITS).astype(np.int64)


def deal_figures(cell: Cell, key: int, start: int, count: int, metric: str, executor: Any = None,
                 on_games: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per deal of ``start .. start + count - 1``, the cell's games played with progress on: the sum of the feel
    figure ``metric`` (stats.feel.chunk_values) over the deal's games that define it, and how many do."""
    from boardsim.executors import per_deal

    for prep in cell.prepared:
        prep.progress = True  # the figures read each round's standings
    rules = cell.prepared[0].rules

    def figure(raw: dict[str, np.ndarray]) -> np.ndarray:
        v = F.chunk_values(cell.game, raw, rules)[metric]
        ok = ~np.isnan(v)
        return np.stack([np.where(ok, v, 0.0), ok], axis=1)

    both = per_deal(cell, key, start, count, figure, CHUNK_DEALS, executor, on_games).reshape(count, 2)  # 0 deals too
    return both[:, 0], both[:, 1]


def pair_sums(game: Game, a: Seat, b: Seat, rules: Any, table: pd.DataFrame, key: int, start: int, count: int,
              seating: str = "all", executor: Any = None, on_games: Callable[[int], None] | None = None
              ) -> tuple[np.ndarray, int]:
    """Seats ``a`` and ``b`` head to head at 2 players on deals ``start .. start + count - 1``, every seating:
    per deal u and v, the two players' win units.  Returns ((sum u, sum u^2, sum v, sum v^2, sum u v, deals),
    games played): whole numbers, the same on any executor and chunking."""
    from boardsim.executors import per_deal

    cell = make_cell(game, 2, [a, b], rules, table, seating_design=seating)
    uv = per_deal(cell, key, start, count, _win_units, CHUNK_DEALS, executor, on_games).reshape(count, 2)  # 0 deals too
    u, v = uv[:, 0], uv[:, 1]
    out = np.array([u.sum(), (u * u).sum(), v.sum(), (v * v).sum(), (u * v).sum(), count], dtype=np.int64)
    return out, len(cell.prepared) * count


def meta_figure(target: F.Target, sums: np.ndarray, confidence: float = 0.95, draws: int = META_DRAWS
                ) -> tuple[float, float, float, float]:
    """_meta_figure, remembered: the search reads the same measurement's frame many times.  ``draws`` = 0:
    the figure alone (lo = hi = the figure, p nan)."""
    return _meta_figure(target, tuple(int(x) for x in np.asarray(sums).ravel()), confidence, draws)


@functools.lru_cache(maxsize=4096)
def _meta_figure(target: F.Target, pair_sums: tuple[int, ...], confidence: float, draws: int
                 ) -> tuple[float, float, float, float]:
    """A metagame target's figure (stats.metagame: nash_support or alpha_entropy) of the head-to-head table
    the pair sums give, with a parametric bootstrap interval: each pair's two mean win-unit totals drawn from
    their normal approximation (their covariance over deals), META_DRAWS times with a fixed seed;
    alpha-Rank keeps the point estimate's alpha.  Returns (figure, lo, hi, p): p, where the figure misses the
    target, twice the share of draws that meet it (a bootstrap p-value of "the target is met"); 1 where it is
    met."""
    sums = np.asarray(pair_sums, dtype=np.float64).reshape(-1, PAIR_SUMS)
    k = int(round((1 + math.sqrt(1 + 8 * len(sums))) / 2))  # policies: k (k - 1) / 2 pairs
    pairs = list(itertools.combinations(range(k), 2))
    d = np.maximum(sums[:, 5], 1.0)
    mu = np.stack([sums[:, 0] / d, sums[:, 2] / d], axis=1)
    cov = np.empty((len(sums), 2, 2))
    cov[:, 0, 0] = (sums[:, 1] / d - mu[:, 0] ** 2) / np.maximum(d - 1, 1)
    cov[:, 1, 1] = (sums[:, 3] / d - mu[:, 1] ** 2) / np.maximum(d - 1, 1)
    cov[:, 0, 1] = cov[:, 1, 0] = (sums[:, 4] / d - mu[:, 0] * mu[:, 1]) / np.maximum(d - 1, 1)

    def table(m: np.ndarray) -> np.ndarray:
        a = np.full((k, k), 0.5)
        for (i, j), (u, v) in zip(pairs, np.clip(m, 0.0, None), strict=True):
            a[i, j] = u / (u + v) if u + v > 0 else 0.5
            a[j, i] = 1.0 - a[i, j]
        return a

    a = table(mu)
    alpha = MG.alpha_rank(a)[1]
    fn = MG.nash_support if target.metric == "nash_support" else (lambda x: MG.alpha_entropy(x, alpha))
    figure = float(fn(a))
    if draws == 0:
        return figure, figure, figure, math.nan
    gen = np.random.default_rng(0)
    # eigh: a pair whose every game has one winner has u + v constant, a singular covariance
    samples = [fn(table(np.array([gen.multivariate_normal(m, c, method="eigh", check_valid="ignore")
                                  for m, c in zip(mu, cov, strict=True)])))
               for _ in range(draws)]
    lo, hi = np.percentile(samples, [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100])
    met = float(np.mean(target.shortfall(np.array(samples)) == 0.0))
    p = 1.0 if target.shortfall(figure) == 0.0 else min(1.0, 2.0 * met)
    return figure, float(lo), float(hi), p


def centre(tests: Sequence[Test], swings: dict[Test, np.ndarray], cards: Sequence[str], values: np.ndarray) -> bool:
    """Fill columns 3-4 of ``values`` (Z = k Y - the group's sum of Y, deal by deal) for every card test whose
    group (base, players) was measured whole on these deals; True when every card test's was."""
    groups: dict[tuple[int, int], list[Test]] = {}
    for t in swings:
        groups.setdefault((t.base, t.players), []).append(t)
    whole = True
    index = {t: i for i, t in enumerate(tests)}
    for members in groups.values():
        if {t.card for t in members} != set(cards):
            whole = False
            continue
        total = np.sum([swings[t] for t in members], axis=0)
        for t in members:
            z = len(cards) * swings[t] - total
            values[index[t], 3:] = (int(z.sum()), int((z * z).sum()))
    return whole


# -- the search ---------------------------------------------------------------------


def edit_count(edits: Edits) -> tuple[int, int]:
    """(edited cards, edits): the tie-break, fewer first."""
    return len({i for i, _, _ in edits}), len(edits)


def with_edit(problem: Problem, edits: Edits, item: str, fld: str, value: int) -> Edits:
    """``edits`` with item.field set to ``value`` (dropped when that is today's value)."""
    rest = [e for e in edits if (e[0], e[1]) != (item, fld)]
    if value != problem.items[(item, fld)]:
        rest.append((item, fld, int(value)))
    return tuple(sorted(rest))


def value_of(problem: Problem, edits: Edits, item: str, fld: str) -> int:
    for i, f, v in edits:
        if (i, f) == (item, fld):
            return v
    return problem.items[(item, fld)]


def synthetic_items(table: pd.DataFrame, edits: Edits) -> list[str]:
    """The edited items (cards, or goals in ``table.attrs["goals"]``) whose ``source`` is ``synthetic``."""
    out = []
    frames = [table] + [pd.DataFrame(t) if isinstance(t, dict) else t for t in table.attrs.values()
                        if isinstance(t, (dict, pd.DataFrame))]
    for item in dict.fromkeys(i for i, _, _ in edits):
        for t in frames:
            if "source" not in t.columns:
                continue
            key = next((c for c in ("name", "card") if c in t.columns and (t[c].astype(str) == item).any()), None)
            if key is not None and (t.loc[t[key].astype(str) == item, "source"] == "synthetic").any():
                out.append(item)
                break
    return out


def describe(problem: Problem, edits: Edits) -> str:
    if not edits:
        return "today's table"
    return ", ".join(f"{i} {f} {problem.items[(i, f)]} -> {v}" for i, f, v in edits)


def _names(cards: Sequence[str], shown: int = 8) -> str:
    return ", ".join(cards[:shown]) + (f" and {len(cards) - shown} more" if len(cards) > shown else "")


@dataclass
class Result:
    problem: Problem
    edits: Edits
    candidates: pd.DataFrame
    history: pd.DataFrame
    dose: pd.DataFrame
    verification: pd.DataFrame
    objective: pd.DataFrame
    limits: list[str]
    games_played: int
    chunks_loaded: int

    @property
    def edits_text(self) -> str:
        return describe(self.problem, self.edits)

    def patch_toml(self) -> str:
        """A ``[cards]`` block a scenario can include as it stands (a scenario's own edits come first)."""
        merged = self.problem.edits_dict(self.edits)
        lines = [f"# boardsim patch for {self.problem.game.title}: {self.edits_text}", "[cards]"]
        for item in sorted(merged):
            body = ", ".join(f"{f} = {json.dumps(v)}" for f, v in merged[item].items())
            lines.append(f"{json.dumps(item)} = {{ {body} }}")
        return "\n".join(lines) + "\n"


class _Search:
    def __init__(self, problem: Problem, measurer: Measurer, say: Callable[[str], None]):
        self.p = problem
        self.m = measurer
        self.say = say
        self.rows: list[dict[str, Any]] = []  # every candidate scored
        self.history: list[dict[str, Any]] = []
        self.dose_rows: list[dict[str, Any]] = []
        self.limits: list[str] = []
        self.n_candidates = 0

    def full(self, edits: Edits) -> pd.DataFrame:
        """Every test on all the search deals (the race's rungs added up)."""
        return self.score(edits, len(RUNGS) - 1)

    def score(self, edits: Edits, rung: int) -> pd.DataFrame:
        """Every test on the search deals of the race's rungs 0 .. ``rung``."""
        total = self.m.measure(edits, "search0")
        for r in range(1, rung + 1):
            total = total + self.m.measure(edits, f"search{r}")
        return total.frame(self.p)

    def record(self, round_no: int, ident: int, edits: Edits, rung: int, frame: pd.DataFrame) -> None:
        """One row of patch_candidates.csv: a candidate's score on the search deals of rungs 0 .. ``rung``."""
        worst = frame.loc[frame["effect"].abs().idxmax()]
        self.rows.append({"round": round_no, "candidate": ident, "patch": describe(self.p, edits),
                          "edits": len(edits), "edited_cards": edit_count(edits)[0], "rung": rung + 1,
                          "share_of_search_deals": RUNGS[rung], "objective": objective_of(frame),
                          "soft_max": soft_max(frame),
                          "worst_test": f"{worst['card']} at {worst['players']}p [{worst['base']}]",
                          "deals_first": 0, "deals_last": int(frame["deals"].max()) - 1,
                          "games": int(frame["games"].sum())})

    def step(self, round_no: int, edits: Edits, frame: pd.DataFrame) -> None:
        """One row of patch_history.csv: the accepted patch after a round."""
        self.history.append({"step": len(self.history), "round": round_no, "patch": describe(self.p, edits),
                             "edits": len(edits), "objective": objective_of(frame), "soft_max": soft_max(frame),
                             "candidates_scored": self.n_candidates})

    def race(self, cands: list[Edits], round_no: int, ref: float) -> tuple[Edits, pd.DataFrame] | None:
        alive = list(dict.fromkeys(cands))
        ident = {}
        for c in alive:
            self.n_candidates += 1
            ident[c] = self.n_candidates
        frames: dict[Edits, pd.DataFrame] = {}
        for r in range(len(RUNGS)):
            scored = []
            for c in alive:
                frames[c] = self.score(c, r)
                scored.append((rank(frames[c], ref), *edit_count(c), ident[c], c))
                self.record(round_no, ident[c], c, r, frames[c])
            scored.sort(key=lambda s: s[:4])
            if r < len(RUNGS) - 1:
                alive = [s[4] for s in scored[: max(1, math.ceil(len(scored) / 2))]]
            else:
                return scored[0][4], frames[scored[0][4]]
        return None

    def dose(self, edits: Edits, now: pd.DataFrame, round_no: int) -> list[tuple[float, str, str, int]]:
        """Measured slopes of the worst items; each item's best predicted value within the span.  Returns
        (predicted gain, item, field, value) for every item whose predicted best differs from its value."""
        p = self.p
        tests = p.tests
        effect = dict(zip(tests, now["effect"], strict=True))
        worst_tests = sorted(tests, key=lambda t: -abs(effect[t]))
        targets: list[tuple[str, str, bool]] = []  # (item, field, judged on the first-player tests)
        worst_cards = list(dict.fromkeys(t.card for t in worst_tests if t.card is not None))[:TARGETS]
        targets += [(c, f, False) for c in worst_cards for f in p.fields if (c, f) in p.items]
        if any(t.card is None for t in worst_tests[:3]):  # the first player is among the worst: any field may move it
            targets += [(i, f, True) for i, f in p.items]
        moves = []
        for item, fld, first in targets:
            found = self.item_dose(edits, effect, item, fld, first, round_no)
            if found is not None and found[1] != found[0]:
                moves.append((found[2] - found[3], item, fld, found[1]))
        moves.sort(key=lambda m: (-m[0], m[1], m[2]))
        return moves

    def item_dose(self, edits: Edits, effect: dict[Test, float], item: str, fld: str, first: bool,
                  round_no: int | str) -> tuple[int, int, float, float] | None:
        """One item's measured slope on its own tests (a card's, or the first-player tests) at its value +-1 on the
        search deals, recorded in the dose table; the whole value within the span whose predicted worst |effect|
        is smallest.  Returns (value, best value, worst |effect| now, predicted worst at the best value), or None
        when no neighbouring value is allowed."""
        p = self.p
        own = [t for t in p.tests if (t.card is None if first else t.card == item)]
        v = value_of(p, edits, item, fld)
        today = p.items[(item, fld)]
        # a card's own tests at a neighbouring value are read against the current patch's reference swings: the
        # slope is the card's own (other cards' swings move too, but a whole-table race then judges the move)
        reference = references(self.full(edits)) if not first else None
        points = {}
        for dv in (-1, 1):
            e2 = with_edit(p, edits, item, fld, v + dv)
            if abs(v + dv - today) <= p.span and p.valid(e2):
                points[dv] = self.m.measure(e2, "search", own).frame(p, reference=reference)["effect"].to_numpy()
        if not points:
            return None
        base_e = np.array([effect[t] for t in own])
        if len(points) == 2:
            slope = (points[1] - points[-1]) / 2
        else:
            (dv, e), = points.items()
            slope = (e - base_e) / dv
        worst_now = float(np.abs(base_e).max())
        best_v, best_pred = v, worst_now
        # a card strong in every test is never made stronger (nor a weak one weaker), whatever the prediction
        side = 0.0 if first else float(np.sign(base_e).mean()) if np.all(np.sign(base_e) == np.sign(base_e[0])) else 0.0
        for cand in range(today - p.span, today + p.span + 1):
            if side * float(np.mean(slope)) * (cand - v) > 0:
                continue
            pred = float(np.abs(base_e + slope * (cand - v)).max())
            if pred < best_pred - 1e-12 and p.valid(with_edit(p, edits, item, fld, cand)):
                best_v, best_pred = cand, pred
        for t, e0, sl in zip(own, base_e, slope, strict=True):
            self.dose_rows.append({"round": round_no, "item": item, "field": fld, "value": v,
                                   "base": p.bases[t.base].label(), "players": t.players,
                                   "test": t.label, "effect": e0,
                                   "slope_per_unit": sl, "best_value": best_v, "predicted_worst_at_best": best_pred})
        return v, best_v, worst_now, best_pred

    def remaining(self, edits: Edits, verification: pd.DataFrame) -> None:
        """What limits the patch: every card still flagged on the fresh deals, with its measured slope at the
        patched value (dose rows of round ``limits``), sorted into cards that one whole step of a field moves
        further than their effect (no whole-number edit brings them closer to fair) and cards that another
        edit could improve, with the edits left in the budget."""
        p = self.p
        searched = {b.label() for b in p.bases[:len(p.bases) - p.judges]}
        after = verification[(verification["table"] == "patched") & (verification["kind"] == "card")
                             & verification["base"].isin(searched)]
        flagged = list(dict.fromkeys(after.loc[after["flag"].fillna("") != "", "card"]))
        if not flagged or p.max_edits == 0:
            return
        now = self.full(edits)
        effect = dict(zip(p.tests, now["effect"], strict=True))
        steep, fixable = [], []
        effects, slopes = [], []
        for card in flagged:
            gains = [found for f in p.fields if (card, f) in p.items
                     and (found := self.item_dose(edits, effect, card, f, False, "limits")) is not None]
            gain = max((g[2] - g[3] for g in gains), default=0.0)
            if gain > SLACK:
                fixable.append(card)
                continue
            steep.append(card)
            rows = [r for r in self.dose_rows if r["round"] == "limits" and r["item"] == card]
            effects += [abs(r["effect"]) for r in rows]
            slopes += [abs(r["slope_per_unit"]) for r in rows]
        left = max(p.max_edits - len(edits), 0)
        field_text = "/".join(p.fields)
        text = f"{len(flagged)} card{'s' if len(flagged) != 1 else ''} stay flagged on the fresh deals."
        if steep:
            text += (f" For {len(steep)} of them ({_names(steep)}) no whole-number edit of {field_text} within the "
                     f"span is predicted to lower the worst |effect| by more than {SLACK}")
            if effects:
                text += (f": their effects ({min(effects):.3f}-{max(effects):.3f}) are about as small as, or smaller "
                         f"than, one step's move ({min(slopes):.3f}-{max(slopes):.3f} per unit; patch_dose.csv, "
                         "round limits)")
            text += "."
        if fixable:
            text += (f" {len(fixable)} ({_names(fixable)}) could each be improved by an edit of their own, and "
                     f"{left} edit{'s are' if left != 1 else ' is'} left in the budget of {p.max_edits}"
                     + (", but the search found no such edit that improved on the patch."
                        if left else "."))
        self.limits.append(text)

    def candidates(self, edits: Edits, moves: list[tuple[float, str, str, int]]) -> list[Edits]:
        p = self.p
        out: list[Edits] = []
        for _, item, fld, best in moves:
            for value in (best, best - 1, best + 1):
                c = with_edit(p, edits, item, fld, value)
                if (c != edits and len(c) <= p.max_edits and abs(value - p.items[(item, fld)]) <= p.span
                        and p.valid(c)):
                    out.append(c)
        top: list[tuple[float, str, str, int]] = []  # the most promising moves, one per item
        for m in moves:
            if m[1] not in {t[1] for t in top} and len(top) < JOINT:
                top.append(m)
        for k in (2, 3):
            for combo in itertools.combinations(top, k):
                c = edits
                for _, item, fld, value in combo:
                    c = with_edit(p, c, item, fld, value)
                if len(c) <= p.max_edits and p.valid(c):
                    out.append(c)
        return list(dict.fromkeys(out))

    @staticmethod
    def better(frame: pd.DataFrame, edits: Edits, now: pd.DataFrame, current: Edits, ref: float) -> bool:
        """Whether ``edits`` (scored ``frame``) should replace ``current`` (scored ``now``) on the same deals: its
        objective within the slack, and a soft maximum lower by more than GAIN, or one within GAIN with fewer
        edited cards (the tie rule)."""
        r, r_now = rank(frame, ref), rank(now, ref)
        if r[0] > r_now[0]:
            return False
        if r[0] < r_now[0] or r[2] < r_now[2] * (1 - GAIN):
            return True
        return r[2] <= r_now[2] * (1 + GAIN) and edit_count(edits) < edit_count(current)

    def run(self) -> Edits:
        p = self.p
        current: Edits = ()
        now = self.full(current)
        obj = objective_of(now)
        self.step(0, current, now)
        self.say(f"today: objective {obj:.3f} on the search deals")
        round_no = 0
        while p.max_edits > 0 and round_no < p.max_edits + 3:  # a round may also re-value an edited card
            round_no += 1
            moves = self.dose(current, now, round_no)
            cands = self.candidates(current, moves)
            if not cands and len(current) < p.max_edits:
                self.limits.append(f"Round {round_no}: no edit within +-{p.span} of today's values is predicted "
                                   "to lower the worst items' effects (their measured slopes are too small or "
                                   "point the wrong way).")
                break
            if not cands:
                break
            ref = min(h["objective"] for h in self.history)
            best, frame = self.race(cands, round_no, ref)
            best_obj = objective_of(frame)
            better = self.better(frame, best, now, current, ref)
            self.say(f"round {round_no}: {len(cands)} candidates; best {describe(p, best)}: {best_obj:.3f} "
                     f"({'kept' if better else 'no gain'} against {obj:.3f})")
            if not better:
                self.limits.append(f"Round {round_no}: the best of {len(cands)} candidates "
                                   f"({describe(p, best)}) scored {best_obj:.3f} (soft maximum "
                                   f"{soft_max(frame):.3f}), no better than {obj:.3f} ({soft_max(now):.3f}) on the "
                                   "same deals.")
                break
            current, now, obj = best, frame, best_obj
            self.step(round_no, current, now)
        spent = p.max_edits > 0 and len(current) >= p.max_edits
        # fewest edits: drop any edit whose removal does not make the objective worse
        dropped = 0
        for e in list(current):
            if e not in current:
                continue
            trial = tuple(x for x in current if x != e)
            frame = self.full(trial)
            t_obj = objective_of(frame)
            self.n_candidates += 1
            self.record(round_no + 1, self.n_candidates, trial, len(RUNGS) - 1, frame)
            ref = min(h["objective"] for h in self.history)
            if self.better(frame, trial, now, current, ref):
                self.say(f"dropped {e[0]} {e[1]}: {t_obj:.3f} without it")
                dropped += 1
                current, now, obj = trial, frame, t_obj
                self.step(round_no + 1, current, now)
        if spent:
            budget = f"{p.max_edits} edit{'s' if p.max_edits != 1 else ''}"
            self.limits.append(f"The search used the whole budget of {budget}"
                               + (f", then dropped {dropped} that did not help." if dropped else "."))
        return current


def verify(problem: Problem, measurer: Measurer, edits: Edits, alpha: float = 0.05,
           confidence: float = 0.95) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Today's table and the patched one on the fresh verification deals: every test's effect with its
    interval, Holm's correction over each table's whole family, and the objective with its simultaneous
    interval.  Returns (per-test rows, objective rows)."""
    frames, objs = [], []
    for name, e in (("today", ()), ("patched", edits)):
        f = flag_effects(measurer.measure(e, "verify", problem.all_tests).frame(problem, confidence), alpha)
        f.loc[f["kind"].isin(TARGET_KINDS) & (f["flag"] != ""), "flag"] = "missed"  # a target not reached
        first = [problem.segment("verify", n)[0] for n in f["players"]]
        f.insert(0, "table", name)
        f["deals_first"] = first
        f["deals_last"] = [a + d - 1 for a, d in zip(first, f["deals"], strict=True)]
        frames.append(f)
        groups = [("all", f)] + ([(b.label(), f[f["base"] == b.label()]) for b in problem.bases]
                                 if len(problem.bases) > 1 else [])
        for base, part in groups:
            if part.empty:  # a base player with no test of its own (a metagame target judges them together)
                continue
            lo, hi = objective_interval(part, confidence)
            card_rows = part[part["kind"] == "card"]
            fp_rows = part[part["kind"] == "first_player"]
            feel_rows = part[part["kind"].isin(TARGET_KINDS)]
            objs.append({"table": name, "base": base, "patch": describe(problem, e),
                         "objective": objective_of(part), "objective_lo": lo, "objective_hi": hi,
                         "worst_card_effect": objective_of(card_rows) if len(card_rows) else np.nan,
                         "worst_first_player": objective_of(fp_rows) if len(fp_rows) else np.nan,
                         "worst_target_shortfall": objective_of(feel_rows) if len(feel_rows) else np.nan,
                         "flagged": int((part["flag"] != "").sum()),
                         "flagged_cards": int(card_rows.loc[card_rows["flag"] != "", "card"].nunique()),
                         "tests": len(part), "correction": f["correction"].iloc[0],
                         "deals_first": int(part["deals_first"].min()), "deals_last": int(part["deals_last"].max())})
    objective = pd.DataFrame(objs)
    # confirmed: the patched table's simultaneous interval for the objective lies wholly below today's
    today = objective[objective["table"] == "today"].set_index("base")["objective_lo"]
    objective["confirmed"] = [bool(t == "patched" and hi < today[b])
                              for t, b, hi in zip(objective["table"], objective["base"], objective["objective_hi"],
                                                  strict=True)]
    return pd.concat(frames, ignore_index=True), objective


ROUND_TABLES = 8.5  # whole-table measurements a search round costs, about (a race of ~16 candidates on its rungs)


def table_games(problem: Problem) -> int:
    """Games one measurement of every test of the table on the search deals plays (two arms a card test)."""
    return sum(problem.deals(t.players) * (2 * t.players if t.card is not None else 1) for t in problem.all_tests)


def cost_range(problem: Problem) -> tuple[float, float, float]:
    """(seconds, seconds, calibration seconds): the patch's time if the search stops at once (today's table and
    the two verification tables) and if it uses every edit (ROUND_TABLES more tables a round), from one card
    test's lineup timed at each player count."""
    import time as _time

    from boardsim import cost

    t0 = _time.perf_counter()
    per_table = 0.0
    for n in problem.counts:
        tests = [t for t in problem.all_tests if t.players == n]
        lineup = problem.seats(tests[0])
        games = sum(problem.deals(n) * (2 * n if t.card is not None else 1) for t in tests)
        per_table += cost.seconds_per_game(problem.game, n, lineup, seed=problem.seed, rules=problem.rules,
                                           cards=problem.table(())) * games
    return 3 * per_table, (3 + ROUND_TABLES * problem.max_edits) * per_table, _time.perf_counter() - t0


def search_patch(problem: Problem, executor: Any = None, folder: Path | None = None,
                 say: Callable[[str], None] = lambda s: None, fresh: bool = False,
                 on_games: Callable[[int], None] | None = None) -> Result:
    """Search for the patch (see the module docstring), then verify it on fresh deals; ``on_games`` hears the
    games of every measurement as they are played (a progress bar)."""
    m = Measurer(problem, executor, folder, on_games=on_games, fresh=fresh)
    s = _Search(problem, m, say)
    edits = s.run()
    verification, objective = verify(problem, m, edits)
    if problem.objective != "first_player":
        s.remaining(edits, verification)
    made_up = synthetic_items(problem.table(()), edits)
    if made_up:
        s.limits.append(f"Warning: the patch edits {', '.join(made_up)}, marked synthetic in the game's data (made up "
                        "to fill the game, not from the rulebook): check the rulebook before reading the edit as a "
                        "fix of the published game.")
    return Result(problem, edits, pd.DataFrame(s.rows), pd.DataFrame(s.history), pd.DataFrame(s.dose_rows),
                  verification, objective, s.limits, m.games, m.loaded)
