"""Art Deco's policies as data: the built-in bots, ``rules``, ``custom`` and ``mcts`` (docs/rules/art-deco.md).

A seat's row of the policy matrix is its policy's code (``decide.RANDOM`` ..) and then its parameters in the
order declared here; ``decide.py`` reads those rows.  Every seat answers from the plain engine except
``custom`` (and a ``rules`` seat whose rules ``decide.rule_tables`` cannot turn into tables: the game's
``seat_needs`` refines its declared ``user`` need) and ``mcts`` (the search variant).
"""

from __future__ import annotations

from boardsim import tree as _tree
from boardsim.games.art_deco.decide import (
    BLOCKER,
    CUSTOM,
    ELIGIBILITY,
    MCTS,
    MULTIPLE,
    PAR,
    POLICY_WIDTH,
    RANDOM,
    RULES,
)
from boardsim.games.base import SEARCH, Option, Policy, custom_policy, learned_policy, rules_policy

__all__ = ["PLAYOUTS", "POLICIES", "POLICY_WIDTH"]

_SELL = Option(
    "sell_margin",
    1,
    "sell a card (keeping enough to win) when its sale price beats its value by at least this",
    "int",
    -1000,
    1000,
)

PLAYOUTS = ("random", "par", "multiple", "eligibility", "blocker")  # the mcts rollouts' policies

# card strength's two arms (docs/guide/measure-a-card.md): the policy matrix's COL_FAVOUR and COL_AVOID
_CARD_ARMS = (
    Option("favour", [], "one card (by name, e.g. v8) whose value the seat bids on up to all it may pay and "
           "buys whenever it can; every other decision as without it", "names", most=1),
    Option("avoid", [], "one card (by name) whose value the seat never bids on or buys", "names", most=1),
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
    Policy("par", PAR, "bids up to the card's value and buys direct at up to value", (_SELL, *_CARD_ARMS)),
    Policy(
        "multiple",
        MULTIPLE,
        "bids up to multiple x value",
        (Option("multiple", 1.2, "reservation price as a multiple of value", "float", 0.0, 10.0), _SELL,
         *_CARD_ARMS),
    ),
    Policy(
        "eligibility",
        ELIGIBILITY,
        "bids up to hard x value until it holds target cards, then only at par",
        (
            Option("hard", 1.6, "multiple of value paid while short of target cards", "float", 0.0, 10.0),
            Option("target", 5, "cards it wants to hold", "int", 0, 100),
            _SELL,
            *_CARD_ARMS,
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
            *_CARD_ARMS,
        ),
    ),
    rules_policy(RULES, "an ordered rule list of bid_up_to, pass, buy_up_to, decline, sell and keep rules "
                        "(docs/rules/art-deco.md)"),
    custom_policy(CUSTOM, "a user's @numba.njit scorer over the legal actions (docs/rules/art-deco.md)"),
    # a model fitted to the search's choices (boardsim.learned), asked at the same decisions as a custom scorer
    learned_policy(CUSTOM, "a model learned from the mcts search's choices (`boardsim learn`), scoring the bid, "
                           "buy and sell candidates as a custom scorer does", extra=_CARD_ARMS),
    # information-set MCTS over the step interface (mcts.py, step.py; docs/rules/art-deco.md): its own engine
    # variant, compiled only for cells with an mcts seat; its numbers travel in Prepared["mcts"]
    Policy("mcts", MCTS, "Monte Carlo tree search over every bid, direct buy and sale (bid candidates from the "
           "playout policy), rollouts by a built-in policy",
           _tree.params(1000, PLAYOUTS, "multiple", extra=(
               Option("bids", 0, "candidates per bid decision: pass, the minimum bid, then up to bids - 2 jump "
                      "bids (the playout's reservation, the value, 1.25 and 1.5 x value, minimum + 1); 0 = auto: 4 "
                      "at 2 players, 2 at 3 or 4", "int", 0, 7),
               Option("widening", 0.0, "progressive widening k0: a node considers its first "
                      "ceil(k0 * (visits + 1) ** 0.5) candidates (0 = all)", "float", 0.0, 100.0),
               Option("opponents", "tree", "the other seats' decisions in a search: tree (tree nodes, each "
                      "maximising its own reward) or playout (they play the playout policy: a best response "
                      "to it)", "choice", choices=("tree", "playout")),
               Option("rank", 0.25, "weight of the finishing share in the rollout reward: (1 - rank) x win share "
                      "+ rank x the share of the other seats finished ahead of", "float", 0.0, 1.0),
           )), rollouts="iterations", needs=frozenset({SEARCH})),
)
