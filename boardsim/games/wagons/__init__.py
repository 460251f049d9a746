"""Circle the Wagons: 2-player card-circle drafting and town building (docs/rules/circle-the-wagons.md).

Cards and goals are data: ``GAME.card_table(edits, card_file, goal_file)`` returns
the deck with the goal table in ``attrs["goals"]`` (a dict of columns); ``card_file`` may also name a
goal file (recognised by its ``kind`` column) or list a deck and a goal file.
``prepare`` accepts that deck DataFrame, a ``(deck, goals)`` tuple or a
``{"deck": ..., "goals": ...}`` dict.

Explain API: ``score_town``, ``legal_placements``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numba
import numpy as np
import pandas as pd

from boardsim import tree
from boardsim.games.base import FAST, SEARCH, USER, Game, LearnedView, Prepared, Seat, stable_hash
from boardsim.games.wagons import balance, decide, engine, kernel, mcts, policies
from boardsim.games.wagons import cards as _cards
from boardsim.games.wagons import rules as game_rules  # (``rules``: prepare's argument)
from boardsim.games.wagons.explain import TownScore, format_trace, legal_placements, score_town
from boardsim.games.wagons.policies import POLICIES, policy_matrix
from boardsim.rulelist import RuleArrays

__all__ = ["GAME", "TownScore", "Wagons", "legal_placements", "score_town"]

Cards = pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame] | Mapping[str, pd.DataFrame]


class Wagons(Game):
    name = "wagons"
    title = "Circle the Wagons"
    rules_page = "docs/rules/circle-the-wagons.md"
    min_players = 2
    max_players = 2
    default_players = 2
    options = game_rules.OPTIONS
    policies = POLICIES
    default_policy = "gain_minus_gift"
    progress_measure = ("town points (land groups + the three goals) after each turn; feel's rounds are pairs of "
                        "turns")
    patch_default_fields = ("a", "b")  # the goals' signed points
    seat_counters = engine.SEAT_COUNTERS
    game_counters = engine.GAME_COUNTERS
    end_reasons = engine.END_REASONS
    balance = balance
    rule_actions = decide.ACTIONS
    rule_features = decide.FEATURES
    min_task_games = 400  # ~700-3,000 games per core-second with greedy placement

    def card_table(
        self,
        edits: Mapping[str, Mapping[str, Any]] | None = None,
        card_file: str | Sequence[str] | None = None,
        goal_file: str | None = None,
    ) -> pd.DataFrame:
        """The deck (18 fronts), with the goal table in ``attrs["goals"]`` (dict of columns).

        ``edits`` keys are card ids (fields tl_land .. br_symbol, goal) or goal names
        (fields name, kind, symbol, symbol2, land, a, b).
        """
        deck, goals = _cards.load_tables(card_file, goal_file)
        deck, goals = _cards.apply_edits(deck, goals, edits)
        # a plain dict (not a DataFrame) so pandas can still compare and copy attrs
        deck.attrs["goals"] = goals.to_dict("list")
        return deck

    def patch_fields(self, table: pd.DataFrame) -> list[tuple[str, str, int]]:
        """(goal name, a or b, today's value) for each point parameter the goal's kind reads: the numeric
        fields of the table (a card front has only lands and symbols)."""
        goals = pd.DataFrame(table.attrs["goals"]) if "goals" in table.attrs else self.goal_table()
        out = []
        for row in goals.to_dict("records"):
            uses = _cards.GOAL_KINDS[str(row["kind"])]
            out += [(str(row["name"]), f, int(row[f])) for f in _cards.FIELDS if f in uses]
        return out

    def goal_table(self, goal_file: str | None = None) -> pd.DataFrame:
        """The 18 goals, bundled or from a user goal file."""
        return _cards.load_tables(None, goal_file)[1]

    def _tables(self, cards: Cards | None) -> tuple[pd.DataFrame, pd.DataFrame]:
        if cards is None:
            return _cards.load_tables()
        if isinstance(cards, pd.DataFrame):
            goals = cards.attrs.get("goals")
            return cards, pd.DataFrame(goals) if goals is not None else _cards.load_tables()[1]
        if isinstance(cards, Mapping):
            deck = cards.get("deck")
            goals = cards.get("goals")
        else:
            deck, goals = cards
        bundled = _cards.load_tables()
        return (bundled[0] if deck is None else deck), (bundled[1] if goals is None else goals)

    def prepare(
        self,
        n_players: int,
        seats: Sequence[Seat],
        rules: Mapping[str, Any] | None,
        cards: Cards | None,
    ) -> Prepared:
        resolved = self.resolve_rules(n_players, seats, rules)
        deck, goals = self._tables(cards)
        deck, goals, card_land, card_sym, card_goal, goal_params = _cards.checked(deck, goals)
        rules_vec = game_rules.encode_rules(resolved)
        pol = policy_matrix(seats)
        users = self.search_user_seats(seats)  # an mcts seat with learned rollouts carries the model
        rl = self.seat_rules(users, cards=deck)
        decide.fill_needs(pol, rl)
        self.seat_scorers(users)  # a scorer that cannot be imported or compiled fails before any game
        arrays = {
            "mcts": _mcts_rows(seats),
            "rules": rules_vec,
            "card_land": card_land,
            "card_sym": card_sym,
            "card_goal": card_goal,
            "goal_params": goal_params,
            "policies": pol,
            **{f"rule_{name}": a for name, a in zip(RuleArrays._fields, rl, strict=True)},
            "card_names": np.asarray(deck["card"], dtype=str),
            "goal_names": np.asarray(goals["name"], dtype=str),
        }
        return Prepared(self.name, n_players, list(seats), resolved, arrays, stable_hash(deck, goals, resolved))

    def _args(self, prepared: Prepared) -> tuple[Any, ...]:
        """The batch kernel's fixed signature: the rule vector, cards, policies, rule lists and scorers."""
        names = ("rules", "card_land", "card_sym", "card_goal", "goal_params", "policies")
        rl = RuleArrays(*(np.ascontiguousarray(prepared[f"rule_{name}"]) for name in RuleArrays._fields))
        return (*(np.ascontiguousarray(prepared[k]) for k in names), rl,
                self.seat_scorers(self.search_user_seats(prepared.seats)))

    def learned_view(self, cards: Any = None) -> LearnedView:
        """The draft's decision features and candidate columns (docs/rules/circle-the-wagons.md); one weight per
        card of the deck (``cards``: the deck table, None: the bundled one)."""
        deck = self._tables(None)[0] if cards is None else cards
        return LearnedView(tuple(decide.DECISION_FEATURES), tuple(decide.CANDIDATE_COLUMNS), ("draft",),
                           decide.C_CARD, len(deck))

    def seat_needs(self, prepared: Prepared, seat: int) -> frozenset[str]:
        """The declared needs, and ``fast`` for a seat that places with ``fast`` or ``quick`` (fast.py's code
        serves both; an mcts seat's row holds its playouts' placement)."""
        needs = super().seat_needs(prepared, seat)
        if prepared["policies"][seat, policies.COL_PLACE] >= policies.PLACE_FAST:
            needs = needs | {FAST}
        if self.learned_rollouts(prepared.seats[seat]):
            needs = needs | {USER}  # its rollouts ask the model (the scorer code of the user variant)
        return needs

    def _flags(self, prepared: Prepared) -> tuple[bool | None, bool | None]:
        """The engines' arguments ``fast`` and ``user``: True when a seat needs that code, else None (numba then
        prunes it from the variant)."""
        needs = self.cell_needs(prepared)
        return (True if FAST in needs else None), (True if USER in needs else None)

    def play(self, prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
        """Result arrays (base.py); ``goal0..goal2`` are the 0-based rows of the goals in play and
        the seat counters ``goal0_points..goal2_points`` split ``goal_points`` by them.  With
        ``prepared.progress``, also ``progress``: (count, 2, 15) int64, each seat's town points (lands and
        goals, as the final scoring counts them) at the end of turn r + 1, the final score after the last turn."""
        if SEARCH in self.cell_needs(prepared):  # the mcts engine variant (mcts.py), compiled only for such cells
            return self.play_stepped(prepared, cell_key, start, count)
        score, win, seat_out, game_out = self.new_results(count, 2)
        goal_out = np.zeros((count, 2, engine.N_GOALS_IN_PLAY), dtype=np.int64)
        progress = kernel.progress_array(count, prepared.progress)  # zero-size when off: the same signature
        fast, user = self._flags(prepared)
        kernel.batch_kernel(fast, user)(kernel.play_range_for(fast, user), np.uint64(cell_key), int(start),
                                        *self._args(prepared), score, win, seat_out, game_out, goal_out, progress,
                                        user, fast, policies.search)
        return self._outputs(score, win, game_out, seat_out, progress, prepared.progress)

    def play_stepped(self, prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
        """The mcts variant's games: every draft, starting card and placement through step.py, each seat
        choosing as in ``play``."""
        out = mcts.run(self._args(prepared), prepared["mcts"], cell_key, start, count, self._flags(prepared)[1],
                       prepared.progress)
        return self._outputs(out[0], out[1], out[3], out[2], out[7], prepared.progress)

    def feel_rounds(self, out: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Feel's rounds are pairs of turns (both seats have drafted): after single turns, the lead mostly
        follows whoever just took a card.  Round k is turn 2k (the last round: the last turn)."""
        prog, turns = out["progress"], out["rounds"]
        R = prog.shape[2]
        idx = np.minimum(np.arange(1, R + 1, 2), R - 1)
        return prog[:, :, idx], (turns + 1) // 2, turns

    def feel_groups(self, out: Mapping[str, np.ndarray], cards: Any) -> tuple[str, list[str], np.ndarray] | None:
        """By goal: the three goals in play are dealt at random each game (``goal0..goal2``, rows of the goal
        table), so a goal's difference in a feel figure is the effect of playing with it."""
        goals = pd.DataFrame(cards.attrs["goals"]) if cards is not None and "goals" in cards.attrs else None
        if goals is None:
            return None
        names = [str(n) for n in goals["name"]]
        held = np.zeros((len(out["goal0"]), len(names)), dtype=bool)
        for k in range(3):
            held[np.arange(len(held)), np.asarray(out[f"goal{k}"], dtype=np.int64)] = True
        return "goal", names, held

    def _outputs(self, score: np.ndarray, win: np.ndarray, game_out: np.ndarray, seat_out: np.ndarray,
                 progress: np.ndarray, on: bool) -> dict[str, np.ndarray]:
        out = self.result_arrays(score, win, game_out, seat_out)
        if on:
            out["progress"] = progress
        return out

    def _trace_game(self, prepared: Prepared, cell_key: int, index: int) -> tuple[np.ndarray, ...]:
        if SEARCH in self.cell_needs(prepared):
            return mcts.run(self._args(prepared), prepared["mcts"], cell_key, int(index), 1, self._flags(prepared)[1])
        return kernel.trace_game(*self._flags(prepared), np.uint64(cell_key), int(index), *self._args(prepared))

    replay_round_header = r"^turn (\d+):"
    replay_round_feature = "turn"
    replay_round_base = 1  # the view counts turns from 0, the trace from 1
    replay_round_name = "turn"
    replay_table_lag = 1  # a turn's block draws the towns after it: a decision sees the turn before's

    replay_headline = ("my_score", "opp_score", "my_cards", "opp_cards", "cards_left")

    def replay_table(self, block: str) -> dict[str, Any] | None:
        """Both towns as the turn's last drawing shows them (land letter and symbol per card corner; every
        town is public), rows top to bottom."""
        lines = block.splitlines()
        heads = [i for i, line in enumerate(lines) if line.startswith("  seat 0") and "seat 1" in line]
        if not heads:
            return None
        towns: list[list[list[str]]] = [[], []]
        for line in lines[heads[-1] + 1:]:
            if not line.strip():
                break
            body = line[2:]
            # the two towns stand three or more spaces apart; a row with seat 0's town empty starts blank
            parts = ["", body.strip()] if body.startswith(" ") else (re.split(r"\s{3,}", body.strip(), maxsplit=1)
                                                                      + [""])[:2]
            for s, part in enumerate(parts):
                cells = [] if "(empty)" in part else part.split()
                if cells:
                    towns[s].append(cells)
        return {"kind": "towns", "towns": towns}

    def describe_option(self, kind: str, row: Mapping[str, float], cards: Any = None) -> str:
        table = self.card_table() if cards is None else cards
        names = list(table["card"]) if isinstance(table, pd.DataFrame) and "card" in table else []
        k = int(row["card"])
        name = names[k] if 0 <= k < len(names) else f"#{k}"
        skip = int(row["position"])
        return (f"take card {name} (skip {skip}): gain {row['gain']:g}, gift {row['gift']:g}" if skip else
                f"take card {name}, the next one: gain {row['gain']:g}, gift {row['gift']:g}")

    def trace(self, prepared: Prepared, cell_key: int, index: int) -> str:
        result = self._trace_game(prepared, cell_key, index)
        text = format_trace(prepared, *result[:6])
        if len(result) > 6:  # an mcts game: each mcts placement's visit count
            text = _with_visits(text, result[6], result[5])
        return text

    def trace_scores(self, trace: str) -> list[int]:
        """The ``  seat <k>: lands ...; total <n>`` lines under the last ``scoring``."""
        end = trace[trace.rindex("\nscoring\n"):]
        return [int(m.group(2)) for m in sorted(re.finditer(r"^  seat (\d+): lands .*; total (-?\d+)$", end, re.M),
                                                 key=lambda m: int(m.group(1)))]

    def trace_events(self, prepared: Prepared, cell_key: int, index: int) -> np.ndarray:
        """The engine's placement log of one game: rows (seat, card, x, y, rot, free, turn)."""
        return self._trace_game(prepared, cell_key, index)[5]


def _mcts_rows(seats: Sequence[Seat]) -> np.ndarray:
    """Each seat's mcts row (mcts.M_*; zeros for other seats), its pool checked against the memory limit."""
    def extra(v: Mapping[str, Any], row: np.ndarray) -> None:
        row[mcts.M_SPOTS] = v["spots"]
        row[mcts.M_LOOK] = v["lookahead"]
        row[mcts.M_WIDEN] = v["widening"]

    return tree.seat_rows(seats, next(p for p in POLICIES if p.name == "mcts"), mcts, mcts.BRANCHING,
                          int(numba.config.NUMBA_NUM_THREADS),
                          _playout_row, extra)


def _playout_row(v: Mapping[str, Any]) -> np.ndarray:
    """An mcts seat's playout policy row, its needs filled as for a seat of that policy (a learned playout
    scores with every decision feature); a playout is never a rule list, so no rule arrays are read."""
    rows = policy_matrix([Seat(v["playout"], {"placement": v["placement"]})])
    decide.fill_needs(rows, None)
    return rows[0]


def _with_visits(text: str, visits: np.ndarray, events: np.ndarray) -> str:
    """The trace's placement lines, each mcts choice with its root visit count."""
    lines = text.split("\n")
    k = 0
    for i, line in enumerate(lines):
        if line.startswith("turn ") and " places it at " in line:
            while k < len(events) and events[k, 0] < 0:
                k += 1
            if k < len(visits) and visits[k] > 0:
                lines[i] = f"{line} (mcts: {int(visits[k])} visits)"
            k += 1
    return "\n".join(lines)


GAME = Wagons()
