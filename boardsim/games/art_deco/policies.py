"""Art Deco bots as data: one jitted interpreter switches on a policy code.

A seat's policy is a row of the policy matrix: column 0 the code, then the
parameters in the order declared below.  Sweeping a parameter changes numbers
in that row only, never the compiled code.

Every non-random policy works from a *reservation price* r: it bids the
minimum legal amount while that amount is <= r (the "+1 up to a cap" style
of the spec) and buys a direct-purchase card when its price is <= r.
"""

from __future__ import annotations

import math

from numba import njit

from boardsim.games.base import Option, Policy

RANDOM, PAR, MULTIPLE, ELIGIBILITY, BLOCKER = range(5)

_SELL = Option(
    "sell_margin",
    1,
    "sell a card (keeping enough to win) when its sale price beats its value by at least this",
    "int",
    -1000,
    1000,
)

POLICIES: tuple[Policy, ...] = (
    Policy(
        "random",
        RANDOM,
        "random legal moves: passes with pass_prob, else raises by 1..max_raise",
        (
            Option("pass_prob", 0.5, "chance of passing at each bidding turn", "float", 0.0, 1.0),
            Option("max_raise", 3, "largest step over the minimum bid", "int", 1, 100),
            Option("buy_prob", 0.5, "chance of buying each direct-purchase card", "float", 0.0, 1.0),
            Option("sell_prob", 0.25, "chance of selling a random sellable card", "float", 0.0, 1.0),
        ),
    ),
    Policy("par", PAR, "bids up to the card's value and buys direct at up to value", (_SELL,)),
    Policy(
        "multiple",
        MULTIPLE,
        "bids up to multiple x value",
        (Option("multiple", 1.2, "reservation price as a multiple of value", "float", 0.0, 10.0), _SELL),
    ),
    Policy(
        "eligibility",
        ELIGIBILITY,
        "bids up to hard x value until it holds target cards, then only at par",
        (
            Option("hard", 1.6, "multiple of value paid while short of target cards", "float", 0.0, 10.0),
            Option("target", 5, "cards it wants to hold", "int", 0, 100),
            _SELL,
        ),
    ),
    Policy(
        "blocker",
        BLOCKER,
        "bids multiple x value, but outbids the leader up to value + cap",
        (
            Option("multiple", 1.0, "reservation price as a multiple of value", "float", 0.0, 10.0),
            Option("cap", 4, "how far over value it goes to stop the leader", "int", 0, 1000),
            _SELL,
        ),
    ),
)

POLICY_WIDTH = 5  # code + up to 4 parameters


@njit(cache=True, nogil=True, inline="always")
def reservation(pol, seat, value, n_cards, leader_is_high):
    """Most ``seat`` would pay for a card of ``value``; -1 means never.

    Policies take the whole matrix and a seat index rather than a row view:
    a view costs reference counting on every call in the hot loop.
    """
    code = int(pol[seat, 0])
    if code == PAR:
        return value
    if code == MULTIPLE:
        return int(math.floor(pol[seat, 1] * value + 1e-9))
    if code == ELIGIBILITY:
        if n_cards < pol[seat, 2]:
            return int(math.floor(pol[seat, 1] * value + 1e-9))
        return value
    if code == BLOCKER:
        r = int(math.floor(pol[seat, 1] * value + 1e-9))
        if leader_is_high:
            r = max(r, value + int(pol[seat, 2]))
        return r
    return -1


@njit(cache=True, nogil=True, inline="always")
def choose_bid(pol, seat, r, value, min_bid, max_bid, n_cards, leader_is_high):
    """The bid ``seat`` makes, or -1 to pass; ``max_bid`` already folds in ceiling and credit.

    ``r`` is a uniform number the engine draws for every decision, used or not:
    a generator call under a data-dependent branch is several times slower.
    """
    if min_bid > max_bid:
        return -1
    if int(pol[seat, 0]) == RANDOM:
        pass_prob = pol[seat, 1]
        if r < pass_prob:
            return -1
        step = int((r - pass_prob) / (1.0 - pass_prob) * pol[seat, 2])  # r is uniform above pass_prob
        return min(max_bid, min_bid + step)
    if min_bid <= reservation(pol, seat, value, n_cards, leader_is_high):
        return min_bid
    return -1


@njit(cache=True, nogil=True, inline="always")
def bid_limits(pol, seat, value, n_cards, max_bid):
    """``choose_bid`` for a deterministic policy as two numbers fixed for one auction.

    Such a seat bids the minimum legal amount while that amount is <= the first number (the
    second while the leader it watches is the high bidder; the same but for the blocker) and
    passes otherwise.  Seat cards and cash do not change during an auction, so the engine works
    these out once per auction instead of at every bidding turn.
    """
    lo = min(max_bid, reservation(pol, seat, value, n_cards, False))
    hi = lo
    if int(pol[seat, 0]) == BLOCKER:
        hi = min(max_bid, reservation(pol, seat, value, n_cards, True))
    return lo, hi


@njit(cache=True, nogil=True, inline="always")
def wants_direct(pol, seat, r, value, price, n_cards):
    if int(pol[seat, 0]) == RANDOM:
        return r < pol[seat, 3]
    return price <= reservation(pol, seat, value, n_cards, False)


@njit(cache=True, nogil=True, inline="always")
def sell_margin(pol, seat):
    """Minimum sale gain for the deterministic policies (their last parameter)."""
    code = int(pol[seat, 0])
    if code == PAR:
        return pol[seat, 1]
    if code == MULTIPLE:
        return pol[seat, 2]
    return pol[seat, 3]  # ELIGIBILITY and BLOCKER
