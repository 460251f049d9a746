"""FlipToons purchase heuristics as data.

The decision interface (``decide.choose`` / ``lookahead.lookahead_choose``) switches on the code in
column 0 of the policy matrix (POLICY_CODE) and reads the parameters after it; the priority list is encoded into a
separate int array.  The ``rules`` and ``custom`` policies read the decision view of
docs/rules/fliptoons.md instead.  Sub-choices inside banners and hooks (Horse discards, Pig destination,
Butterfly, Alligator and Skunk targets) follow the seat's policy: ``random`` picks at random, every
other policy takes the lowest-value card, discards market cards worth less than its deck average and
sends the Pig to the opponent with the most fame.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boardsim import tree
from boardsim.errors import BadInput
from boardsim.games.base import (
    LOOKAHEAD,
    SCRATCH,
    SEARCH,
    Option,
    Policy,
    Seat,
    custom_policy,
    learned_policy,
    resolve_options,
    rules_policy,
)
from boardsim.games.fliptoons.state import (
    POL_CUSTOM,
    POL_FPC,
    POL_HIGHEST,
    POL_LOOKAHEAD,
    POL_MCTS,
    POL_PRIORITY,
    POL_RANDOM,
    POL_RULES,
    POL_SYNERGY,
)

DEFAULT_ORDER = ["Elephant", "Bear", "Tiger", "Peacock", "Alligator", "Turkey", "Lion", "Rooster", "Deer",
                 "Horse", "Eagle", "Rabbit", "Monkey", "Cow"]

_DISMISS = (
    Option("dismiss_below", 0.5, "dismiss a face-up card whose value is at most this (Caterpillar 0, Skunk 0)",
           "float", -100, 100),
    Option("dismiss_reserve", 0, "only dismiss when at least this much fame is left afterwards", "int", 0, 100),
)


# needs (base.Policy.needs): the lean engine plays a cell of random, highest_rank, priority and fame_per_cost
# seats; synergy's private flips, lookahead's playouts and the rules and custom seats need the full engine,
# and mcts its own variant.

# the policies an mcts seat's rollouts may play (mcts.PLAYOUTS): priority needs its own order, lookahead would
# search inside the search
MCTS_PLAYOUTS = ("fame_per_cost", "highest_rank", "random", "synergy", "learned")


def policies(card_names: Sequence[str]) -> tuple[Policy, ...]:
    # card strength's ban arm (docs/guide/measure-a-card.md): the seat plays on as itself but never hires the card
    avoid = Option("avoid", [], "a card this seat never hires; every other decision as without it", "list",
                   choices=tuple(card_names), most=1)
    return (
        Policy("random", POL_RANDOM, "uniformly random legal action (end included); random sub-choices"),
        Policy("highest_rank", POL_HIGHEST, "hire the highest-rank affordable card; never dismiss"),
        Policy("priority", POL_PRIORITY, "hire the first affordable card of an ordered list",
               (Option("order", DEFAULT_ORDER, "card names, most wanted first", "list",
                       choices=tuple(card_names)),
                Option("fallback", "fame_per_cost", "what to do when no listed card is affordable",
                       "choice", choices=("fame_per_cost", "none")), avoid)),
        Policy("fame_per_cost", POL_FPC,
               "greedy: the hire or junk dismissal with the best expected grid-fame gain / price^e",
               (Option("min_gain", -0.25, "hire only when the expected grid-fame gain exceeds this", "float",
                       -100, 100),
                Option("cost_exponent", 1.0, "price exponent e (0 = ignore price)", "float", 0, 5),
                *_DISMISS, avoid)),
        Policy("synergy", POL_SYNERGY,
               "hire the card adding the most fame to this deck, estimated by quick private flips",
               (Option("flips", 8, "flips per estimate (common random numbers)", "int", 1, 200),
                Option("cost_exponent", 1.0, "price exponent e (0 = ignore price)", "float", 0, 5),
                Option("min_gain", 0.0, "hire only when the estimated gain exceeds this", "float", -100, 100),
                *_DISMISS), needs=frozenset({SCRATCH})),
        Policy("lookahead", POL_LOOKAHEAD,
               "flat Monte Carlo: playouts per candidate action with the unseen toon deck reshuffled; "
               "playouts use fame_per_cost",
               (Option("playouts", 30, "playouts per candidate", "int", 1, 10000),
                Option("horizon", 0, "rounds to play out (0 = to the end of the game)", "int", 0, 100)),
               rollouts="playouts", needs=frozenset({LOOKAHEAD})),
        rules_policy(POL_RULES, "an ordered list of hire / dismiss / pass rules over the decision view "
                                  "(docs/rules/fliptoons.md); no rule applies: pass"),
        custom_policy(POL_CUSTOM, "a user's @numba.njit scorer of the candidate market actions "
                                    "(docs/rules/fliptoons.md, Decision view)"),
        # a model fitted to the search's choices (boardsim.learned), asked where a custom scorer is
        learned_policy(POL_CUSTOM, "a model learned from the mcts search's choices (`boardsim learn`), scoring "
                                   "the candidate market actions as a custom scorer does",
                       # card strength under a learned base (cards --base learned): as mcts's favour
                       extra=(Option("favour", [], "card names hired whenever one is affordable (first listed "
                                     "first); every other decision is the model's", "list",
                                     choices=tuple(card_names)), avoid)),
        # information-set MCTS over the step interface (mcts.py; docs/rules/fliptoons.md): its own engine
        # variant, compiled only for cells with an mcts seat; its numbers travel in Prepared["mcts"]
        Policy("mcts", POL_MCTS,
               "Monte Carlo tree search over every hire, dismissal and pass, the unseen decks resampled each "
               "iteration; rollouts by a built-in policy",
               tree.params(1000, MCTS_PLAYOUTS, "fame_per_cost", extra=(
                   Option("opponents", "playout", "the other seats' actions inside the search: tree nodes of their own "
                          "(tree) or the playout policy's choices (playout)", "choice", choices=("tree", "playout")),
                   # card strength under a strong base (cards --base mcts(...)): the favouring seat is the base
                   # itself, which hires the card whenever it can
                   Option("favour", [], "card names hired whenever one is affordable (first listed first); every "
                          "other decision is searched", "list", choices=tuple(card_names)),
                   avoid,
                   # playout = "learned": the rollouts' model (expert iteration: boardsim learn's later rounds)
                   Option("model", "", "with playout = learned, the model file its rollouts play (empty: the bundled "
                          "model for the table's player count)", "model"),
               )), rollouts="iterations", needs=frozenset({SEARCH})),
    )


POLICY_WIDTH = 6
# The policy matrix's columns (Game.policy_matrix: the code, then each policy's parameters in the order declared
# above, list parameters left out: priority's order travels in encode_priority's array); decide.py,
# lookahead.py and explain.py read them by these names, and tests/games/fliptoons/test_games.py checks them
# against the declarations.
POLICY_CODE = 0
FPC_MIN_GAIN, FPC_COST_EXPONENT, FPC_DISMISS_BELOW, FPC_DISMISS_RESERVE = range(1, 5)
SYNERGY_FLIPS, SYNERGY_COST_EXPONENT, SYNERGY_MIN_GAIN, SYNERGY_DISMISS_BELOW, SYNERGY_DISMISS_RESERVE = range(1, 6)
PRIORITY_FALLBACK = 1  # 0: fame_per_cost, 1: none
LOOKAHEAD_PLAYOUTS, LOOKAHEAD_HORIZON = 1, 2


def encode_priority(seats: Sequence[Seat], pols: Sequence[Policy], card_names: Sequence[str]) -> np.ndarray:
    """Per seat, the priority order (an mcts or learned seat: its ``favour`` list) as card indices padded with
    -1."""
    width = len(card_names) + 2
    out = np.full((len(seats), width), -1, dtype=np.int32)
    by_name = {p.name: p for p in pols}
    for i, seat in enumerate(seats):
        pol = by_name.get(seat.policy)
        if pol is None or pol.name not in ("priority", "mcts", "learned", "fame_per_cost"):
            continue
        try:
            values = resolve_options(pol.params, seat.params)
        except BadInput as e:
            raise e.under(f"seats[{i}]") from None
        order = list(values.get("order" if pol.name == "priority" else "favour", []))
        for j, name in enumerate(order[: width - 2]):
            out[i, j] = card_names.index(name)
        avoid = list(values.get("avoid", []))  # at most one (the option's bound)
        if avoid:  # after the favoured cards, as -2 - kind (engine._avoided reads it at setup)
            out[i, min(len(order), width - 2)] = -2 - card_names.index(avoid[0])
    return out
