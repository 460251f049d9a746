"""Explain FlipToons positions with the simulator's own jitted functions (no second implementation).

Slots are named ``r0c0`` .. ``r1c2`` (base grid, reading order) and ``X0c1``, ``X1c1`` ... (extra rows
above r0, X0 nearest).  A stack is a list of card names bottom to top; ``"Name(fd)"`` is face-down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardsim.errors import BadInput
from boardsim.games.base import resolve_options
from boardsim.games.fliptoons import cards as _cards
from boardsim.games.fliptoons import rules as _rules
from boardsim.games.fliptoons.engine import _apply, _decay, _dismiss_legal, _hire, _hire_legal, _hooks, _refill, _skunk
from boardsim.games.fliptoons.grid import _fame, _place_all
from boardsim.games.fliptoons.kernel import _scratch
from boardsim.games.fliptoons.policies import FPC_COST_EXPONENT, FPC_DISMISS_BELOW, POLICY_CODE
from boardsim.games.fliptoons.state import (
    A_DISMISS,
    ACTS,
    DECK,
    DEPLETED,
    DN,
    DSTART,
    DTOT,
    END_REASONS,
    EV_CLEANUP,
    EV_DECAY,
    EV_DISCARD,
    EV_DISMISS,
    EV_FAME,
    EV_FINAL,
    EV_GAIN,
    EV_GRID,
    EV_HIRE,
    EV_MARKET,
    EV_PIG,
    EV_RESULT,
    EV_ROUND,
    EV_SKUNK,
    EV_SNAKE_BOTTOM,
    EV_SNAKE_DRAW,
    EV_SNAKE_SIDE,
    EV_TURN,
    FAME,
    GF,
    GK,
    GL,
    GN,
    GQ,
    GS,
    LOG_W,
    MAXX,
    MSEQ,
    N_STATS,
    PL_MONKEY,
    POL_FPC,
    Q0,
    QN,
    SPEND,
    TN,
    Consts,
    Outputs,
    _add_grid,
    _alloc,
    _deck_top_push,
    _recount_grid,
    _set_value_sum,
)
from boardsim.rng import new_state

Grid = Mapping[str, Sequence[str]]


def slot_name(s: int) -> str:
    if s < 6:
        return f"r{s // 3}c{s % 3}"
    return f"X{(s - 6) // 3}c{(s - 6) % 3}"


def slot_index(name: str) -> int:
    try:
        row, col = name[:-2], int(name[-1])
        if name[-2] != "c" or not 0 <= col <= 2:
            raise ValueError
        if row in ("r0", "r1"):
            return int(row[1]) * 3 + col
        if row.startswith("X"):
            x = int(row[1:])
            if 0 <= x < MAXX:
                return 6 + 3 * x + col
    except (ValueError, IndexError):
        pass
    raise BadInput("grid", f"bad slot name {name!r} (r0c0..r1c2, X0c0..X{MAXX - 1}c2)")


@dataclass
class ScoreLines:
    total: int
    lines: list[tuple[str, str, int]]


@dataclass
class FlipResult:
    grid: dict[str, list[str]]
    dismissed: list[str]
    deck: list[str]
    toon_deck: list[str]
    queued: list[str] = field(default_factory=list)  # When Hired banners of Snake-stacked cards


class Table:
    """A constructed game state for explaining and testing single steps (market, hooks, Flip).

    ``players`` seats; rule options by name; ``cards`` an optional edited card table.
    """

    def __init__(self, players: int = 1, rules: Mapping[str, Any] | None = None, cards: Any = None,
                 seed: int = 1):
        table = _cards.load_table() if cards is None else cards
        self.names = _cards.names(table)
        self.kind = {n: i for i, n in enumerate(self.names)}
        resolved = resolve_options(_rules.OPTIONS, rules)
        card_arr = _cards.encode(table)
        prices = _rules.encode_prices(resolved)
        pol = np.zeros((players, 6), dtype=np.float64)
        pol[:, POLICY_CODE] = POL_FPC
        pol[:, FPC_COST_EXPONENT] = 1.0
        pol[:, FPC_DISMISS_BELOW] = 0.5
        prio = np.full((players, 1), -1, dtype=np.int32)
        self.C = Consts(card_arr, _rules.encode_rules(resolved), prices, pol, prio, _cards.card_values(table))
        K = len(self.names)
        maxc = int(card_arr[:, _cards.C_COPIES].sum() + card_arr[:, _cards.C_SOLO].sum() + 16)
        self.S = _alloc(players, K, maxc, maxc, len(prices))
        self.X = _scratch(self.S, self.C, K, maxc, maxc, len(prices))  # kernel scratch (hooks)
        self.O = Outputs(np.zeros((N_STATS, players, K), dtype=np.int32), np.zeros((players, 1), dtype=np.int16),
                         np.zeros((1, LOG_W), dtype=np.int32))
        self.rng = new_state(np.uint64(seed))
        self.players = players

    # -- cards ---------------------------------------------------------------------------------
    def card(self, token: str) -> tuple[int, int]:
        name, fd = (token[:-4], 1) if token.endswith("(fd)") else (token, 0)
        if name not in self.kind:
            raise BadInput("cards", f"unknown card {name!r} (known: {', '.join(self.names)})")
        return self.kind[name], fd

    # -- setting state ---------------------------------------------------------------------------
    def set_grid(self, p: int, grid: Grid) -> None:
        pc, pv = self.S.rows, self.S.seat
        pv[p, GN] = 0
        for name, stack in grid.items():
            s = slot_index(name)
            if isinstance(stack, str):
                stack = [stack]
            for token in stack:
                k, fd = self.card(token)
                _add_grid(p, pc, pv, k, s, fd)
        _recount_grid(p, pc, pv)  # the grid counts Check Fame reads (the old grid's are still there)
        _set_value_sum(p, pc, pv, self.C.values)  # the running sum the greedy policies read

    def set_deck(self, p: int, deck: Sequence[str]) -> None:
        """``deck`` top card first."""
        pc, pv = self.S.rows, self.S.seat
        kinds = [self.card(token)[0] for token in deck]
        movers = sum(int(self.C.cards[k, _cards.C_PLACE] == PL_MONKEY) for k in kinds)
        if movers > MAXX:  # as for a card table: more could need more extra rows than the grid has
            raise BadInput("deck", f"{movers} cards with the Monkey placement; at most {MAXX} are supported")
        pv[p, DN] = 0
        for k in reversed(kinds):
            _deck_top_push(p, pc, pv, k)
        _set_value_sum(p, pc, pv, self.C.values)

    def set_toon(self, toon: Sequence[str]) -> None:
        """``toon`` top card first."""
        sh, t = self.S.shared, self.S.toon
        cards = [self.card(x)[0] for x in reversed(list(toon))]
        t[: len(cards)] = cards
        sh[TN] = len(cards)

    def set_market(self, market: Sequence[str | None]) -> None:
        """Slot by slot, left to right; None (or '') is an empty slot."""
        sh, mk = self.S.shared, self.S.market
        mk[0, :] = -1
        for s, name in enumerate(market):
            if name:
                mk[0, s] = self.card(name)[0]
                mk[1, s] = sh[MSEQ]
                sh[MSEQ] += 1

    def set_dismissed(self, p: int, pile: Sequence[str]) -> None:
        dism, pv, cards = self.S.dismissed, self.S.seat, self.C.cards
        dism[p, :] = 0
        pv[p, DTOT] = 0
        pv[p, DSTART] = 0
        for name in pile:
            k = self.card(name)[0]
            dism[p, k] += 1
            pv[p, DTOT] += 1
            pv[p, DSTART] += int(cards[k, _cards.C_STARTER] != 0)

    def set_fame(self, p: int, fame: int, actions: int = 2) -> None:
        pv = self.S.seat
        pv[p, FAME] = fame
        pv[p, SPEND] = fame
        pv[p, ACTS] = actions

    # -- reading state ---------------------------------------------------------------------------
    def grid(self, p: int = 0) -> dict[str, list[str]]:
        pc, pv = self.S.rows, self.S.seat
        order = sorted(range(pv[p, GN]), key=lambda i: (pc[p, GS, i], pc[p, GQ, i]))
        out: dict[str, list[str]] = {}
        for i in order:
            name = self.names[pc[p, GK, i]] + ("(fd)" if pc[p, GF, i] else "")
            out.setdefault(slot_name(int(pc[p, GS, i])), []).append(name)
        return out

    def deck(self, p: int = 0) -> list[str]:
        pc, pv = self.S.rows, self.S.seat
        return [self.names[pc[p, DECK, i]] for i in range(pv[p, DN] - 1, -1, -1)]

    def toon(self) -> list[str]:
        sh, t = self.S.shared, self.S.toon
        return [self.names[t[i]] for i in range(sh[TN] - 1, -1, -1)]

    def market(self) -> list[str | None]:
        mk = self.S.market
        return [self.names[k] if k >= 0 else None for k in mk[0]]

    def dismissed(self, p: int = 0) -> list[str]:
        dism = self.S.dismissed
        return [self.names[k] for k in range(len(self.names)) for _ in range(dism[p, k])]

    def fame(self, p: int = 0) -> int:
        return int(self.S.seat[p, FAME])

    def spendable(self, p: int = 0) -> int:
        return int(self.S.seat[p, SPEND])

    def actions(self, p: int = 0) -> int:
        return int(self.S.seat[p, ACTS])

    @property
    def depleted(self) -> bool:
        return bool(self.S.shared[DEPLETED])

    # -- steps (each one the engine's own jitted function) ---------------------------------------
    def score(self, p: int = 0) -> ScoreLines:
        total = int(_fame(p, self.S, self.C, None))
        pc, pv = self.S.rows, self.S.seat
        order = sorted(range(pv[p, GN]), key=lambda i: (pc[p, GS, i], pc[p, GQ, i]))
        lines = [(slot_name(int(pc[p, GS, i])), self.names[pc[p, GK, i]], int(pc[p, GL, i]))
                 for i in order if pc[p, GF, i] == 0]
        return ScoreLines(total, lines)

    def check_fame(self) -> list[int]:
        out = []
        for p in range(self.players):
            f = int(_fame(p, self.S, self.C, None))
            self.set_fame(p, f)
            out.append(f)
        return out

    def place_all(self, p: int = 0) -> None:
        """Flip without shuffling: reveal from the top of the deck as it stands."""
        _place_all(p, self.S, self.C, self.O, self.rng)

    def queued(self, p: int = 0) -> list[str]:
        pv = self.S.seat
        return [self.names[pv[p, Q0 + t]] for t in range(pv[p, QN])]

    def refill(self) -> None:
        _refill(self.S, self.C)

    def decay(self) -> None:
        _decay(self.S, self.C, self.O)

    def hire(self, p: int, slot: int) -> None:
        if not _hire_legal(p, slot, self.S, self.C):
            raise BadInput("hire", f"slot {slot} cannot be hired")
        _hire(p, slot, self.S, self.C, self.O, self.rng)

    def grid_index(self, p: int, token: str, slot: str | None = None) -> int:
        pc, pv = self.S.rows, self.S.seat
        k, fd = self.card(token)
        for i in range(pv[p, GN]):
            if pc[p, GK, i] == k and pc[p, GF, i] == fd and (
                    slot is None or pc[p, GS, i] == slot_index(slot)):
                return i
        raise BadInput("grid", f"no {token!r} in player {p}'s grid")

    def can_dismiss(self, p: int, token: str) -> bool:
        try:
            g = self.grid_index(p, token)
        except BadInput:
            return False
        return bool(_dismiss_legal(p, g, self.S, self.C))

    def dismiss(self, p: int, token: str) -> None:
        g = self.grid_index(p, token)
        if not _dismiss_legal(p, g, self.S, self.C):
            raise BadInput("dismiss", f"{token} cannot be dismissed")
        _apply(p, A_DISMISS + g, self.S, self.C, self.O, self.rng)

    def end_of_turn_hooks(self, p: int) -> None:
        _hooks(p, self.S, self.C, self.O, self.X, self.rng)

    def least_fame_hook(self) -> None:
        _skunk(self.S, self.C, self.O, self.rng)

    def set_policy(self, p: int, code: int, *params: float) -> None:
        pol = self.C.policies
        pol[p, :] = 0
        pol[p, POLICY_CODE] = code
        for j, v in enumerate(params):
            pol[p, 1 + j] = v


def _table(cards: Any = None, rules: Mapping[str, Any] | None = None, players: int = 1) -> Table:
    return Table(players=players, rules=rules, cards=cards)


def score_grid(
    grid: Grid,
    market: Sequence[str] = (),
    others: Sequence[Grid] = (),
    dismissed: Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
    cards: Any = None,
) -> ScoreLines:
    """Check Fame for one grid.  ``others`` are other players' grids (Dog, Camel)."""
    t = _table(cards, rules, players=1 + len(others))
    t.set_grid(0, grid)
    for q, g in enumerate(others):
        t.set_grid(q + 1, g)
    t.set_market(list(market)[: len(t.C[2])])
    t.set_dismissed(0, dismissed)
    return t.score(0)


def flip(
    deck: Sequence[str],
    toon_deck: Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
    cards: Any = None,
) -> FlipResult:
    """Flip ``deck`` (top card first, no shuffle) into an empty grid; Snake draws from ``toon_deck``."""
    t = _table(cards, rules, players=1)
    t.set_deck(0, deck)
    t.set_toon(toon_deck)
    t.place_all(0)
    return FlipResult(t.grid(0), t.dismissed(0), t.deck(0), t.toon(), t.queued(0))


# -- trace formatting ---------------------------------------------------------------------------------
_WHY = ("paid", "Skunk", "Donkey", "Alligator", "Butterfly", "Snake")


def format_trace(prepared: Any, score: np.ndarray, win: np.ndarray, game_out: np.ndarray,
                 log: np.ndarray, notes: dict[int, str] | None = None) -> str:
    """The game's events as text; ``notes`` (log row -> text) is added to the line of that row (an mcts
    game: each mcts choice's visits)."""
    names = getattr(prepared, "card_names", None) or _cards.names(_cards.load_table())
    P = prepared.n_players
    prices = list(prepared["prices"])
    labels = [s.label() for s in prepared.seats]

    def nm(k: int) -> str:
        return names[k] if k >= 0 else "-"

    out: list[str] = [f"FlipToons, {P} player(s): " + ", ".join(f"P{i} {lab}" for i, lab in enumerate(labels))]
    grids: dict[int, dict[int, list[str]]] = {}
    lines: dict[int, list[str]] = {}

    def flush_grids() -> None:
        for p in sorted(grids):
            out.append(f"  P{p} grid:")
            for s in sorted(grids[p], key=lambda s: (-(s - 6) // 3 - 10 if s >= 6 else s)):
                out.append(f"    {slot_name(s)}: [" + " / ".join(grids[p][s]) + "]")
            out.append("    fame: " + ", ".join(lines[p]))
        grids.clear()
        lines.clear()

    for i, row in enumerate(log):
        code, a, b, c, d, e, f, g = (int(x) for x in row)
        if code != EV_GRID and grids:
            flush_grids()
        if code == EV_ROUND:
            out.append(f"== Round {a} (first player P{b}, toon deck {c}) ==")
        elif code == EV_MARKET:
            cells = [f"{nm(k)}@{prices[s]}" for s, k in enumerate((a, b, c, d, e, f)[: len(prices)])]
            out.append("  market: " + " ".join(cells) + f" | toon deck {g}")
        elif code == EV_GRID:
            label = nm(c) + ("(fd)" if d else "")
            grids.setdefault(a, {}).setdefault(b, []).append(label)
            lines.setdefault(a, []).append(f"{nm(c)} {e}" if not d else f"{nm(c)}(fd) 0")
        elif code == EV_FAME:
            out.append(f"  P{a} Check Fame: {b}")
        elif code == EV_HIRE:
            out.append(f"  P{a} hires {nm(b)} for {c} (slot {d})")
        elif code == EV_DISMISS:
            out.append(f"  P{a} dismisses {nm(b)} ({_WHY[c] if 0 <= c < len(_WHY) else c})")
        elif code == EV_DISCARD:
            out.append(f"  P{a}'s Horse discards {nm(b)} from the market")
        elif code == EV_DECAY:
            out.append(f"  market decay discards {nm(a)}")
        elif code == EV_PIG:
            dest = "the toon deck" if c < 0 else f"P{c}'s deck"
            out.append(f"  P{a} puts the {nm(b)} into {dest}")
        elif code == EV_GAIN:
            out.append(f"  P{a}'s {nm(b)}: +{c} fame, +{d} action(s)")
        elif code == EV_TURN:
            out.append(f"  P{a} ends the turn ({b} fame unspent)")
        elif code == EV_SKUNK:
            out.append(f"  P{a} has the least fame: the Skunk dismisses a card")
        elif code == EV_SNAKE_DRAW:
            out.append(f"  P{a}'s Snake stacks {nm(b)} from the toon deck")
        elif code == EV_SNAKE_SIDE:
            out.append(f"  P{a}'s Snake puts {nm(b)} at {slot_name(c)}")
        elif code == EV_SNAKE_BOTTOM:
            out.append(f"  P{a}'s Snake returns {nm(b)} to the bottom of the deck")
        elif code == EV_CLEANUP:
            critic = f"P{c}" if c >= 0 else "nobody"
            out.append(f"  Cleanup: fame trigger {'yes' if a else 'no'}, depleted {'yes' if b else 'no'}, "
                       f"Critic's Choice {critic}")
        elif code == EV_FINAL:
            tag = f" (re-flip {c})" if c else ""
            out.append(f"  Final Flip{tag}: P{a} scores {b}")
        elif code == EV_RESULT:
            pass
        if notes and i in notes:
            out[-1] += " " + notes[i]
    if grids:
        flush_grids()
    reason = END_REASONS[int(game_out[2])] if 0 <= int(game_out[2]) < len(END_REASONS) else "?"
    out.append(f"== End: {reason} after {int(game_out[0])} rounds; scores "
               + ", ".join(f"P{p} {int(score[p])}" for p in range(P))
               + "; win shares " + ", ".join(f"P{p} {float(win[p]):g}" for p in range(P)) + " ==")
    return "\n".join(out)
