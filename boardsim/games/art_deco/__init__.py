"""Art Deco: an auction card game for 2-4 players (docs/rules/art-deco.md)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numba
import numpy as np
import pandas as pd

from boardsim import tree
from boardsim.errors import BadInput, BadParameter
from boardsim.games.art_deco import balance, engine, kernel, mcts
from boardsim.games.art_deco import cards as _cards
from boardsim.games.art_deco import decide as _decide
from boardsim.games.art_deco import rules as game_rules  # (``rules``: prepare's argument)
from boardsim.games.art_deco.decide import (
    ACTIONS,
    COL_CODE,
    FEATURES,
    MCTS,
    P_BID_TABLE,
    P_BUY_TABLE,
    P_MAY_SELL,
    RULES,
    rule_tables,
)
from boardsim.games.art_deco.explain import format_trace
from boardsim.games.art_deco.kernel import RULE_KEYS, TABLE_KEYS
from boardsim.games.art_deco.kernel import inputs as _inputs
from boardsim.games.art_deco.policies import POLICIES, POLICY_WIDTH
from boardsim.games.base import SEARCH, USER, Game, LearnedView, Prepared, Seat, stable_hash


class ArtDeco(Game):
    name = "art_deco"
    title = "Art Deco"
    rules_page = "docs/rules/art-deco.md"
    min_players = 2
    max_players = 4
    default_players = 4
    options = game_rules.OPTIONS
    policies = POLICIES
    default_policy = "eligibility"
    # feel (docs/rules/art-deco.md, "Progress per round (feel)"): ``play``'s ``progress``, and ``standing``
    progress_measure = ("score (cash + values held) after each round; the leader is who would win if the game "
                        "ended then: an eligible seat first, then the higher score, then more cards")
    patch_default_fields = ("value", "copies")
    # the first player's edge is Art Deco's measured imbalance (docs/patch.md); --objective cards judges values
    patch_default_objective = "first_player"
    seat_counters = engine.SEAT_COUNTERS
    game_counters = engine.GAME_COUNTERS
    end_reasons = engine.END_REASONS
    balance = balance
    card_module = _cards
    rule_actions = ACTIONS
    rule_features = FEATURES

    def prepare(
        self,
        n_players: int,
        seats: Sequence[Seat],
        rules: Mapping[str, Any] | None,
        cards: pd.DataFrame,
    ) -> Prepared:
        resolved = self.resolve_rules(n_players, seats, rules)
        deck = (
            np.asarray(resolved["values"], dtype=np.int64)
            if resolved["values"]
            else _cards.deck_values(cards)
        )
        if deck.size == 0:
            raise BadInput("cards", "the deck is empty (every copies count is 0)")
        _check_playable(n_players, resolved, deck)
        arrays = {
            "rules": game_rules.encode_rules(resolved),
            "deck": deck,
            "policies": self._policy_matrix(seats, cards),
            "mcts": _mcts_rows(self, seats),
        }
        rule_arrays = self.seat_rules(seats, cards=cards)
        arrays.update(zip(RULE_KEYS, rule_arrays, strict=True))
        for i, seat in enumerate(seats):  # a model whose bids are limits per auction (decide.learned_limit)
            if seat.policy == "learned" and _decide.bids_from_limits(rule_arrays.params[i]):
                arrays["policies"][i, _decide.P_LIMITS] = 1.0
        # (the plain function, as for opening_range below: a jitted call would compile it for this alone)
        capacity = getattr(engine.collection_capacity, "py_func", engine.collection_capacity)
        tables = rule_tables(arrays["policies"], rule_arrays, arrays["rules"], deck, capacity(arrays["rules"]))
        arrays.update(zip(TABLE_KEYS, tables, strict=True))
        self.seat_scorers(seats)  # a custom scorer that cannot be called fails here, before any game
        return Prepared(self.name, n_players, list(seats), resolved, arrays, stable_hash(cards, resolved))

    def learned_view(self, cards: Any = None) -> LearnedView:
        """The decision features and candidate columns of docs/rules/art-deco.md; one weight per action (pass,
        bid, buy, sell).  A model leaves out the features that change within an auction, so that its bids are
        limits worked out once per auction (decide.learned_limit)."""
        return LearnedView(tuple(FEATURES), tuple(_decide.COLUMNS), ("bid", "buy", "sell"), _decide.K_ACTION, 4,
                           left_out=tuple(FEATURES[k] for k in _decide.LIMIT_FEATURES))

    def _policy_matrix(self, seats: Sequence[Seat], cards: pd.DataFrame | None = None) -> np.ndarray:
        """The policy matrix; an mcts seat's row is its code alone (its numbers are in ``_mcts_rows``).  A seat's
        ``favour`` and ``avoid`` cards go in as 1 + their values (COL_FAVOUR, COL_AVOID), read from ``cards``."""
        plain = [Seat("par") if s.policy == "mcts" else s for s in seats]
        pol = self.policy_matrix(plain, POLICY_WIDTH)
        values = dict(zip(cards["name"], cards["value"], strict=True)) if cards is not None else {}
        for i, s in enumerate(seats):
            if s.policy == "mcts":
                pol[i, :] = 0.0
                pol[i, COL_CODE] = MCTS
                continue
            for key, col in (("favour", _decide.COL_FAVOUR), ("avoid", _decide.COL_AVOID)):
                chosen = list(s.params.get(key, []) or [])  # at most one (the option's bound, checked above)
                if chosen:
                    if chosen[0] not in values:
                        raise BadInput(f"seats[{i}].params.{key}", f"unknown card {chosen[0]!r}; allowed: "
                                       + ", ".join(map(str, values)))
                    pol[i, col] = int(values[chosen[0]]) + 1
        return pol

    def favour(self, card: str, base: Seat | None = None) -> Seat:
        """``base`` that bids on the card's value up to all it may pay and buys it whenever it can (its
        ``favour`` option): par, multiple, eligibility, blocker or learned."""
        return self._card_arm("favour", card, base)

    def avoid(self, card: str, base: Seat | None = None) -> Seat:
        """``base`` that never bids on or buys the card's value (its ``avoid`` option)."""
        return self._card_arm("avoid", card, base)

    def _card_arm(self, what: str, card: str, base: Seat | None) -> Seat:
        base = base or Seat(self.default_policy, {})
        if base.policy not in ("par", "multiple", "eligibility", "blocker", "learned"):
            raise BadParameter("base", f"cannot {what} a card while playing {base.label()}; allowed: par, multiple, "
                                         "eligibility, blocker or learned")
        return Seat(base.policy, {**base.params, what: [card]})

    def market_cards(self, table: pd.DataFrame) -> list[str]:
        """Every card kind in the deck (a kind is a value: each of its copies is the same card)."""
        return list(table.loc[table["copies"] > 0, "name"])

    def with_checks(self, prepared: Prepared) -> Prepared:
        """The same cell with the engine's own checks on (the rule vector's debug flag): each illegal bid or
        sale a policy chooses is counted in the ``illegal`` seat counter (tests)."""
        arrays = {**prepared.arrays, "rules": prepared["rules"].copy()}
        arrays["rules"][game_rules.R_DEBUG] = 1.0
        return Prepared(prepared.game, prepared.n_players, list(prepared.seats), dict(prepared.rules), arrays,
                        prepared.rules_hash, prepared.progress)

    def seat_needs(self, prepared: Prepared, seat: int) -> frozenset[str]:
        """The declared needs, but a ``rules`` seat is asked at each decision only when ``rule_tables`` could
        not turn its bid and buy rules into tables, or its sell rules may sell: else the plain engine reads
        its tables."""
        needs = super().seat_needs(prepared, seat)
        row = prepared["policies"][seat]
        if int(row[COL_CODE]) == RULES and row[P_BID_TABLE] and row[P_BUY_TABLE] and not row[P_MAY_SELL]:
            needs = needs - {USER}
        return needs

    def play(self, prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
        if SEARCH in self.cell_needs(prepared):  # the mcts engine variant (mcts.py), compiled only for such cells
            return self.play_stepped(prepared, cell_key, start, count)
        score, win, seat_out, game_out = self.new_results(count, prepared.n_players)
        progress = kernel.progress_arrays(count, prepared.n_players, _progress_rounds(prepared))
        kernel.play_batch(
            np.uint64(cell_key), start, prepared.n_players, *_inputs(prepared), self._scorers(prepared),
            score, win, seat_out, game_out, *progress,
        )
        return self._outputs(prepared, score, win, seat_out, game_out, *progress)

    def play_stepped(self, prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
        """The mcts variant's games: every decision through step.py, each seat choosing as in ``play``."""
        results = mcts.run(_inputs(prepared), self._scorers(prepared), prepared["mcts"], cell_key, start, count,
                           prepared.n_players, _progress_rounds(prepared))
        return self._outputs(prepared, *results)

    def _outputs(self, prepared: Prepared, score: np.ndarray, win: np.ndarray, seat_out: np.ndarray,
                 game_out: np.ndarray, progress: np.ndarray, progress_cards: np.ndarray) -> dict[str, np.ndarray]:
        """The result dict; with ``prepared.progress`` also ``progress`` and ``progress_cards``: (n, P, rounds)
        int64, each seat's score (cash + held value) and cards held at the end of each round, the rounds after
        the game's last holding its end (so the last round's progress is ``score``)."""
        out = self.result_arrays(score, win, game_out, seat_out)
        if prepared.progress:
            out["progress"] = progress
            out["progress_cards"] = progress_cards
        return out

    replay_headline = ("value", "high_bid", "cash", "cards_held", "cards_needed", "held_value", "leader_standing")

    def describe_option(self, kind: str, row: Mapping[str, float], cards: Any = None) -> str:
        v, price = int(row["value"]), int(row["price"])
        action = int(row["action"])
        if action == 0:
            return {"bid": "pass", "buy": "leave the card", "sell": "keep every card"}.get(kind, "nothing")
        if action == 1:
            return f"bid {price} for the {v}"
        if action == 2:
            return f"buy the {v} for {price}"
        return f"sell the {v} for {price} (held since round {int(row['acquired'])})"

    def standing(self, out: Mapping[str, np.ndarray], rules: Mapping[str, Any]) -> np.ndarray:
        """(n, P, R) float64 keys of the game's own win rule (engine.win_shares) after each round: eligible
        (cards held >= the ``min_cards_to_win`` rule) first, then the higher score, then more cards.

        key = eligible x 2^52 + (score + 2^31) x 2^20 + cards, with the score clipped to [-2^31, 2^31) and the
        cards to [0, 2^20): a whole number below 2^53, so exact in a float64 (equal keys are equal standings)
        and lexicographic in (eligible, score, cards) for any score and card count a game can reach."""
        need = int(rules.get("min_cards_to_win", _MIN_CARDS_DEFAULT))
        score = np.clip(np.asarray(out["progress"], dtype=np.int64), -_SCORE_SPAN, _SCORE_SPAN - 1) + _SCORE_SPAN
        cards = np.clip(np.asarray(out["progress_cards"], dtype=np.int64), 0, _CARD_SPAN - 1)
        eligible = (cards >= need).astype(np.int64)
        # each term and their sum below 2^53: the int64 sum converts to float64 exactly
        return ((eligible << 52) + score * _CARD_SPAN + cards).astype(np.float64)

    def trace(self, prepared: Prepared, cell_key: int, index: int) -> str:
        if SEARCH in self.cell_needs(prepared):
            score, win, seat_out, game_out, log, visits = mcts.trace(
                _inputs(prepared), self._scorers(prepared), prepared["mcts"], np.uint64(cell_key), index,
                prepared.n_players, 100_000)
            return format_trace(prepared, score, win, seat_out, game_out, log, visits)
        score, win, seat_out, game_out, log = kernel.trace_game(
            np.uint64(cell_key), index, prepared.n_players, *_inputs(prepared), self._scorers(prepared),
            100_000,
        )
        return format_trace(prepared, score, win, seat_out, game_out, log)

    def trace_scores(self, trace: str) -> list[int]:
        """The ``  P<k> <policy>: score <n> = cash ...`` lines after ``Game over``."""
        end = trace[trace.rindex("Game over"):]
        return [int(m.group(2)) for m in sorted(re.finditer(r"^  P(\d+) [^\n]*?: score (-?\d+) = cash", end, re.M),
                                                 key=lambda m: int(m.group(1)))]

    def _scorers(self, prepared: Prepared) -> tuple | None:
        """The engine's scorer tuple, or None when no seat is asked at each decision (the faster kernel)."""
        return self.seat_scorers(prepared.seats) if USER in self.cell_needs(prepared) else None


# standing's key: the score and card count spans (see ArtDeco.standing)
_SCORE_SPAN = 1 << 31
_CARD_SPAN = 1 << 20
_MIN_CARDS_DEFAULT = next(o.default for o in game_rules.OPTIONS if o.name == "min_cards_to_win")


def _progress_rounds(prepared: Prepared) -> int:
    """Rounds of progress the cell's games record: the ``rounds`` rule (the most a game can have), 0 when off."""
    return int(prepared.rules["rounds"]) if prepared.progress else 0


def _mcts_rows(game: Game, seats: Sequence[Seat]) -> np.ndarray:
    """Each seat's mcts row (mcts.M_*; zeros for other seats), its pool checked against the memory limit."""
    def extra(v: Mapping[str, Any], row: np.ndarray) -> None:
        row[mcts.M_BIDS] = v["bids"]
        row[mcts.M_WIDEN] = v["widening"]
        row[mcts.M_RANK] = v["rank"]

    return tree.seat_rows(seats, game.policy("mcts"), mcts, mcts.BRANCHING, int(numba.config.NUMBA_NUM_THREADS),
                          lambda v: game.policy_matrix([Seat(v["playout"])], POLICY_WIDTH)[0], extra)


def _check_playable(n_players: int, resolved: Mapping[str, Any], deck: np.ndarray) -> None:
    """BadInput for a setup the engine would run but that cannot be played as a game."""
    hand = resolved["hand_size"]
    need = n_players * hand
    if deck.size < need:
        raise BadInput(
            "rules.hand_size",
            f"dealing {hand} cards to each of {n_players} players needs {need} cards but the deck has "
            f"{deck.size}; allowed: hand_size <= {deck.size // n_players} with this deck, or a deck of at "
            f"least {need} cards",
        )
    # The engine's own bounds: a first bid must lie in [lowest opening bid, value + bid_ceiling].
    factor, ceiling = resolved["open_min_bid"], resolved["bid_ceiling"]
    values = np.unique(deck).tolist()
    # (the plain function under NUMBA_DISABLE_JIT=1, which has no py_func)
    ranges = [getattr(engine.opening_range, "py_func", engine.opening_range)(v, factor, ceiling) for v in values]
    if all(lo > hi for lo, hi in ranges):
        # The smallest card comes closest: lowest opening bid - value = ceil((open_min_bid - 1) x value)
        # grows with the value.  The factor bound is rounded down so that it is itself allowed.
        v, (lo, _) = values[0], ranges[0]
        raise BadInput(
            "rules.open_min_bid",
            f"no opening bid is ever legal: for every card value the lowest opening bid (open_min_bid x value, "
            f"rounded up) is above value + bid_ceiling (the {v}: {lo} > {v} + {ceiling}); allowed: "
            f"open_min_bid <= {math.floor((v + ceiling) / v * 1e4) / 1e4:g} with bid_ceiling {ceiling}, "
            f"or bid_ceiling >= {lo - v} with open_min_bid {factor:g}",
        )


GAME = ArtDeco()
