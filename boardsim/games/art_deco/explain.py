"""Readable traces of one Art Deco game, formatted from the engine's event log."""

from __future__ import annotations

import numpy as np

from boardsim.games.art_deco import engine as E
from boardsim.games.base import Prepared


def format_trace(
    prepared: Prepared,
    score: np.ndarray,
    win: np.ndarray,
    seat_out: np.ndarray,
    game_out: np.ndarray,
    log: np.ndarray,
    visits: np.ndarray | None = None,
) -> str:
    """The game's events as text; ``visits`` (an mcts game: per log row, the mcts choice's root visits, 0
    for other rows) adds ``(mcts: N visits)`` to each mcts choice's line."""
    names = [f"P{i} {s.label()}" for i, s in enumerate(prepared.seats)]
    lines: list[str] = []
    dealt: dict[int, list[int]] = {}
    for i, (rnd, ev, seat, a, b) in enumerate(log.tolist()):
        n_lines = len(lines)
        if ev == E.EV_DEAL:
            dealt.setdefault(seat, []).append(a)
            continue
        if dealt:
            lines.append("Setup: dealt hands")
            for p, vals in sorted(dealt.items()):
                lines.append(f"  {names[p]}: {vals} (value {sum(vals)})")
            dealt = {}
        if ev == E.EV_ACTIVE:
            lines.append(f"Round {rnd}: active card {a}, P{seat} opens the bidding")
        elif ev == E.EV_BID:
            lines.append(f"  P{seat} bids {a}")
        elif ev == E.EV_PASS:
            lines.append(f"  P{seat} passes")
        elif ev == E.EV_WIN:
            lines.append(f"  P{seat} wins the {a} for {b} (overbid {b - a})")
        elif ev == E.EV_UNSOLD:
            where = "goes to the pile bottom" if b else "is discarded"
            lines.append(f"  nobody bids: the {a} {where}")
        elif ev == E.EV_SHOW:
            lines.append(f"  direct purchase: P{seat} turns up a {a}")
        elif ev == E.EV_BUY:
            lines.append(f"  P{seat} buys the {a} for {b}")
        elif ev == E.EV_SKIP:
            lines.append(f"  the {a} goes to the pile bottom")
        elif ev == E.EV_SELL:
            lines.append(f"  sale: P{seat} sells a {a} for {b}")
        elif ev == E.EV_END:
            lines.append(f"Game over after round {rnd}: {E.END_REASONS[a]}")
        if visits is not None and i < len(visits) and visits[i] > 0 and len(lines) > n_lines:
            lines[-1] += f" (mcts: {int(visits[i])} visits)"
    held = E.SEAT_COUNTERS.index("cards_held")
    elig = E.SEAT_COUNTERS.index("eligible")
    cash = E.SEAT_COUNTERS.index("cash")
    for p in range(prepared.n_players):
        tag = "WINS" if win[p] == 1 else (f"shares the win ({win[p]:.2f})" if win[p] > 0 else "")
        ok = "eligible" if seat_out[p, elig] else "not eligible"
        lines.append(
            f"  {names[p]}: score {score[p]} = cash {seat_out[p, cash]} + cards "
            f"({seat_out[p, held]} held, {ok}) {tag}".rstrip()
        )
    if win.sum() == 0:
        lines.append("  no player is eligible: the game has no winner")
    else:
        lines += _tie_lines(score, win, seat_out[:, held], seat_out[:, elig])
    return "\n".join(lines)


def _seats(seats: list[int]) -> str:
    """``P0``, ``P0 and P2``, ``P0, P1 and P3``."""
    names = [f"P{p}" for p in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _tie_lines(score: np.ndarray, win: np.ndarray, cards: np.ndarray, eligible: np.ndarray) -> list[str]:
    """Say how a tie on the top score among eligible players was settled (the engine decided it:
    more cards first, then a shared win); nothing when one player had the top score alone."""
    top = max(int(score[p]) for p in range(len(score)) if eligible[p])
    tied = [p for p in range(len(score)) if eligible[p] and score[p] == top]
    if len(tied) < 2:
        return []
    winners = [p for p in tied if win[p] > 0]
    most = int(cards[winners[0]])
    lines = []
    if len(winners) < len(tied):
        fewer = sorted({int(cards[p]) for p in tied if p not in winners}, reverse=True)
        how = "wins on more cards" if len(winners) == 1 else "hold the most cards"
        lines.append(f"  tie-break: {_seats(tied)} tie on score {top}; {_seats(winners)} {how} "
                     f"({most} vs {', '.join(map(str, fewer))})")
    if len(winners) > 1:
        lines.append(f"  tie remains: {_seats(winners)} have score {top} and {most} cards each; the win is "
                     f"shared (1/{len(winners)} each)")
    return lines
