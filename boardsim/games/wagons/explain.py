"""Explain one town or one game with the same jitted code the simulator runs.

``score_town`` and ``legal_placements`` build a town from a placement list with
``town.place`` and score it with ``town.score``; ``format_trace`` replays the
engine's placement log the same way and draws both towns after each placement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from boardsim.games.wagons import cards
from boardsim.games.wagons import engine as E
from boardsim.games.wagons import town as TW

Placement = tuple[str, int, int, int]

# Positions no game can reach are refused.  Of the 18 cards, the N_GOALS_IN_PLAY centre cards show their
# goal side and are never drafted, so the two towns share the N_CIRCLE circle cards.  P1 takes a card on
# the first turn and P2 always gets a turn after it, so each player ends with at least one card of its
# own choosing: a town holds at most N_CIRCLE - 1 cards.
MAX_TOWN_CARDS = E.N_CIRCLE - 1


@dataclass
class TownScore:
    """A scored town: ``total`` = sum of ``lands`` and ``goals``."""

    total: int
    lands: dict[str, int]
    goals: dict[str, int]
    cells: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)
    guns: int = 0


class _Town:
    """A town built on the jitted grid; user coordinates are shifted by (ox, oy)."""

    def __init__(self, placements: Sequence[Placement], deck: pd.DataFrame, what: str = "town"):
        self.land, self.sym, self.idx, self.cx, self.cy, self.meta = (a[0] for a in TW.new_towns(1))
        self.card_land, self.card_sym, self.card_goal = cards.encode_deck(deck)
        self.names = list(deck["card"])
        self.what = what
        parsed = [self._parse(i, p) for i, p in enumerate(placements)]
        if len(parsed) > MAX_TOWN_CARDS:  # also keeps the cell list within TW.MAX_CELLS
            raise ValueError(f"{what}: {len(parsed)} cards, but a town holds at most {MAX_TOWN_CARDS} (the "
                             f"{E.N_CIRCLE} circle cards, less at least one the other player drafts)")
        self.cards = [p[0] for p in parsed]
        if parsed:
            xs = [p[1] for p in parsed]
            ys = [p[2] for p in parsed]
            if max(xs) - min(xs) > TW.G - 8 or max(ys) - min(ys) > TW.G - 8:
                raise ValueError(f"{what}: the placements span more than {TW.G - 8} cells")
            self.ox, self.oy = 4 - min(xs), 4 - min(ys)
        else:
            self.ox = self.oy = TW.CENTER
        self.saved = np.zeros(TW.N_SAVED, dtype=np.int64)
        used: set[int] = set()
        for i, (c, x, y, rot) in enumerate(parsed):
            if c in used:
                raise ValueError(f"{what}: placement {i} puts card {self.names[c]} down a second time")
            used.add(c)
            gx, gy = x + self.ox, y + self.oy
            n = int(self.meta[TW.META_N])
            if not TW.is_legal(self.idx, n, gx, gy):
                why = ("it touches the town only at a corner" if TW.corner_only(self.idx, n, gx, gy)
                       else "it neither covers a town cell nor shares an edge with one")
                raise ValueError(f"{what}: placement {i} (card {self.names[c]} at ({x}, {y})) is illegal: {why}")
            self.put(c, gx, gy, rot)

    def _parse(self, i: int, p: Placement) -> tuple[int, int, int, int]:
        try:
            card, x, y, rotation = p
        except (TypeError, ValueError):
            raise ValueError(f"{self.what}: placement {i} must be (card, x, y, rotation), got {p!r}") from None
        if card not in self.names:
            raise ValueError(f"{self.what}: placement {i}: unknown card {card!r} (known: {', '.join(self.names)})")
        if rotation not in (0, 180):
            raise ValueError(f"{self.what}: placement {i}: rotation must be 0 or 180, got {rotation!r}")
        for v in (x, y):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"{self.what}: placement {i}: x and y must be integers, got {v!r}")
        return self.names.index(card), int(x), int(y), 0 if rotation == 0 else 1

    def put(self, c: int, gx: int, gy: int, rot: int) -> None:
        was_empty = self.meta[TW.META_N] == 0
        TW.place(self.land, self.sym, self.idx, self.cx, self.cy, self.meta, self.card_land[c], self.card_sym[c],
                 gx, gy, rot, self.saved)
        TW.commit(self.meta, gx, gy, was_empty)

    def counts(self) -> np.ndarray:
        out = np.zeros(TW.N_SYMBOLS, dtype=np.int64)
        TW.count_symbols(self.sym, self.cx, self.cy, self.meta[TW.META_N], out)
        return out

    def score(self, goals: np.ndarray, gp: np.ndarray, opp_cnt: np.ndarray) -> tuple[int, np.ndarray]:
        ws = np.zeros((TW.WS_ROWS, TW.MAX_CELLS), dtype=np.int64)
        detail = np.zeros(TW.N_LANDS + len(goals), dtype=np.int64)
        total = TW.score(self.land, self.sym, self.idx, self.cx, self.cy, self.meta[TW.META_N], goals, gp, opp_cnt,
                         True, ws, detail)
        return int(total), detail

    def cells(self) -> dict[tuple[int, int], tuple[str, str]]:
        out = {}
        for i in range(int(self.meta[TW.META_N])):
            gx, gy = int(self.cx[i]), int(self.cy[i])
            out[(gx - self.ox, gy - self.oy)] = (cards.LANDS[self.land[gy, gx]], cards.SYMBOLS[self.sym[gy, gx]])
        return out


def _goal_rows(goals: Iterable[str | int], table: pd.DataFrame) -> np.ndarray:
    """0-based goal rows; at most the three goals of one game, each once."""
    names = [str(n) for n in table["name"]]
    rows: list[int] = []
    lower = [n.lower() for n in names]
    for g in goals:
        if isinstance(g, (int, np.integer)) and not isinstance(g, bool):
            if not 1 <= g <= len(names):
                raise ValueError(f"goal number {g} out of range 1..{len(names)}")
            row = int(g) - 1
        elif str(g).lower() in lower:
            row = lower.index(str(g).lower())
        else:
            raise ValueError(f"unknown goal {g!r} (known: {', '.join(names)})")
        if row in rows:
            raise ValueError(f"goal {names[row]} (#{row + 1}) is given twice; each goal is on one card, so it "
                             "is in play at most once")
        rows.append(row)
    if len(rows) > E.N_GOALS_IN_PLAY:
        raise ValueError(f"{len(rows)} goals given; a game has {E.N_GOALS_IN_PLAY} goals in play")
    return np.asarray(rows, dtype=np.int64)


def _check_backs(town: _Town, rows: np.ndarray, names: Sequence[str]) -> None:
    """A card whose back is a goal in play lies in the centre, goal side up, so no town can hold it."""
    for c in town.cards:
        g = int(town.card_goal[c])
        if g in rows:
            raise ValueError(f"{town.what}: card {town.names[c]} cannot be in a town while its back, goal "
                             f"{names[g]} (#{g + 1}), is in play (that card lies in the centre)")


def score_town(
    placements: Sequence[Placement],
    goals: Iterable[str | int] = (),
    opponent: Sequence[Placement] | None = None,
    deck: pd.DataFrame | None = None,
    goal_table: pd.DataFrame | None = None,
) -> TownScore:
    """Score a town built from ``(card, x, y, rotation)`` placements applied in order.

    ``x`` grows right and ``y`` down; (x, y) is the cell of the card's top-left
    territory; rotation is 0 or 180.  ``goals`` are goal names or numbers (1..18);
    ``opponent`` is the other town's placement list, needed by majority goals (without
    it the opponent counts as having no symbols).  Illegal placements and positions no game can
    reach (a goal twice, more than three goals, a card in both towns or in a town while its own
    goal is in play, more cards than a town holds) raise ValueError.
    """
    if deck is None or goal_table is None:
        d, g = cards.load_tables()
        deck = d if deck is None else deck
        goal_table = g if goal_table is None else goal_table
    rows = _goal_rows(goals, goal_table)
    gp = cards.encode_goals(goal_table)
    names = list(goal_table["name"])
    town = _Town(placements, deck)
    _check_backs(town, rows, names)
    opp_cnt = np.zeros(TW.N_SYMBOLS, dtype=np.int64)
    if opponent is not None:
        opp = _Town(opponent, deck, "opponent")
        _check_backs(opp, rows, names)
        both = sorted(set(town.cards) & set(opp.cards))
        if both:
            raise ValueError(f"card {town.names[both[0]]} is in both towns; each card is drafted once")
        if len(town.cards) + len(opp.cards) > E.N_CIRCLE:
            raise ValueError(f"the towns hold {len(town.cards) + len(opp.cards)} cards together, but only the "
                             f"{E.N_CIRCLE} circle cards are drafted")
        opp_cnt = opp.counts()
    total, detail = town.score(rows, gp, opp_cnt)
    return TownScore(
        total=total,
        lands={cards.LANDS[k]: int(detail[k]) for k in range(TW.N_LANDS)},
        goals={names[r]: int(detail[TW.N_LANDS + i]) for i, r in enumerate(rows)},
        cells=town.cells(),
        guns=int(town.counts()[TW.GUN]),
    )


def legal_placements(placements: Sequence[Placement], card: str,
                     deck: pd.DataFrame | None = None) -> list[tuple[int, int, int]]:
    """Every legal (x, y, rotation) for ``card`` on the town built from ``placements``.

    The first card may go anywhere; for an empty town this returns the origin only.  A card
    already in the town, or a town already holding the most cards a town can, raises ValueError.
    """
    if deck is None:
        deck = cards.load_tables()[0]
    town = _Town(placements, deck)
    if card not in town.names:
        raise ValueError(f"unknown card {card!r} (known: {', '.join(town.names)})")
    c = town.names.index(card)
    if c in town.cards:
        raise ValueError(f"card {card} is already in the town (placement {town.cards.index(c)}); each card is "
                         "placed once")
    if len(town.cards) >= MAX_TOWN_CARDS:
        raise ValueError(f"the town already holds {len(town.cards)} cards, the most a town can hold")
    n = int(town.meta[TW.META_N])
    if n == 0:
        return [(0, 0, 0), (0, 0, 180)]
    out = []
    for gy in range(int(town.meta[TW.META_Y0]) - 2, int(town.meta[TW.META_Y1]) + 2):
        for gx in range(int(town.meta[TW.META_X0]) - 2, int(town.meta[TW.META_X1]) + 2):
            if TW.is_legal(town.idx, n, gx, gy):
                out += [(gx - town.ox, gy - town.oy, 0), (gx - town.ox, gy - town.oy, 180)]
    return out


# -- trace ----------------------------------------------------------------------------------------------

def render(land: np.ndarray, sym: np.ndarray, box: tuple[int, int, int, int]) -> list[str]:
    """Rows of a town: a land letter and a symbol mark per cell, '..' for empty."""
    x0, y0, x1, y1 = box
    lines = []
    for y in range(y0, y1 + 1):
        row = []
        for x in range(x0, x1 + 1):
            if land[y, x] < 0:
                row.append("..")
            else:
                row.append(cards.LAND_LETTERS[land[y, x]] + cards.SYMBOL_MARKS[sym[y, x]])
        lines.append(" ".join(row))
    return lines


def format_trace(prepared, score, win, seat_out, game_out, goal_out, events) -> str:
    """Both towns after every placement, then the scoring, from the engine's log."""
    card_names = [str(n) for n in prepared["card_names"]]
    goal_names = [str(n) for n in prepared["goal_names"]]
    card_land, card_sym, gp = prepared["card_land"], prepared["card_sym"], prepared["goal_params"]
    seats = [s.label() for s in prepared.seats]
    first = int(game_out[0, E.G_FIRST])
    goals = np.asarray([game_out[0, E.G_GOAL0 + g] for g in range(E.N_GOALS_IN_PLAY)], dtype=np.int64)
    land, sym, idx, cx, cy, meta = TW.new_towns(2)
    saved = np.zeros(TW.N_SAVED, dtype=np.int64)
    legend = ", ".join(f"{ch}={nm}" for ch, nm in zip(cards.LAND_LETTERS, cards.LANDS, strict=True))
    marks = ", ".join(f"{ch}={nm}" for ch, nm in zip(cards.SYMBOL_MARKS, cards.SYMBOLS, strict=True))
    out = [
        f"Circle the Wagons: P1 = seat {first} ({seats[first]}), P2 = seat {1 - first} ({seats[1 - first]})",
        "goals: " + "; ".join(f"{goal_names[g]} (#{g + 1})" for g in goals),
        f"P2 chose starting card {card_names[game_out[0, E.G_START]]}",
        f"lands: {legend}; symbols: {marks}; coordinates relative to each town's first card",
        "",
    ]
    origin = [None, None]
    for e in events:
        if e[E.EV_SEAT] < 0:
            continue
        p, c, x, y, rot = (int(v) for v in e[:5])
        if origin[p] is None:
            origin[p] = (x, y)
        was_empty = meta[p, TW.META_N] == 0
        TW.place(land[p], sym[p], idx[p], cx[p], cy[p], meta[p], card_land[c], card_sym[c], x, y, rot, saved)
        TW.commit(meta[p], x, y, was_empty)
        how = "gets free card" if e[E.EV_FREE] else "takes"
        ux, uy = x - origin[p][0], y - origin[p][1]
        out.append(f"turn {int(e[E.EV_TURN]) + 1}: seat {p} {how} {card_names[c]}, places it at ({ux}, {uy}) "
                   f"rotation {180 * rot}")
        pics = []
        for q in range(2):
            box = None
            if meta[q, TW.META_N]:
                box = (int(meta[q, TW.META_X0]), int(meta[q, TW.META_Y0]), int(meta[q, TW.META_X1]),
                       int(meta[q, TW.META_Y1]))
            pics.append(render(land[q], sym[q], box) if box else ["(empty)"])
        width = max(len(s) for s in pics[0])
        out.append(f"  {'seat 0'.ljust(width)}   seat 1")
        for i in range(max(len(pics[0]), len(pics[1]))):
            left = pics[0][i] if i < len(pics[0]) else ""
            right = pics[1][i] if i < len(pics[1]) else ""
            out.append(f"  {left.ljust(width)}   {right}")
        out.append("")
    ws = np.zeros((TW.WS_ROWS, TW.MAX_CELLS), dtype=np.int64)
    cnt = np.zeros((2, TW.N_SYMBOLS), dtype=np.int64)
    for p in range(2):
        TW.count_symbols(sym[p], cx[p], cy[p], meta[p, TW.META_N], cnt[p])
    out.append("scoring")
    for p in range(2):
        detail = np.zeros(TW.N_LANDS + len(goals), dtype=np.int64)
        total = TW.score(land[p], sym[p], idx[p], cx[p], cy[p], meta[p, TW.META_N], goals, gp, cnt[1 - p], True, ws,
                         detail)
        lands = ", ".join(f"{cards.LANDS[k]} {int(detail[k])}" for k in range(TW.N_LANDS))
        gl = ", ".join(f"{goal_names[g]} {int(detail[TW.N_LANDS + i]):+d}" for i, g in enumerate(goals))
        out.append(f"  seat {p}: lands {int(detail[:TW.N_LANDS].sum())} ({lands}); goals: {gl}; "
                   f"guns {int(cnt[p, TW.GUN])}; total {int(total)}")
        assert int(total) == int(score[0, p]), "trace replay disagrees with the engine"
    w = win[0]
    result = ("shared win" if w[0] == w[1] else f"seat {int(np.argmax(w))} wins")
    if w[0] != w[1] and score[0, 0] == score[0, 1]:
        result += " on Guns"
    out.append(f"result: {result} ({int(score[0, 0])} - {int(score[0, 1])}, {int(game_out[0, E.G_ROUNDS])} turns)")
    return "\n".join(out) + "\n"
