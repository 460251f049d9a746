"""FlipToons Season 1: a deck-building grid game for 1-4 players (docs/rules/fliptoons.md).

``GAME`` implements ``boardsim.games.base.Game``; ``score_grid`` and ``flip`` explain single
positions with the same jitted code the simulator runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numba
import numpy as np
import pandas as pd

from boardsim import tree
from boardsim.errors import BadInput, BadParameter
from boardsim.games.base import LOOKAHEAD, SCRATCH, SEARCH, USER, Game, LearnedView, Prepared, Seat, stable_hash
from boardsim.games.fliptoons import balance, decide, kernel, mcts, state
from boardsim.games.fliptoons import cards as _cards
from boardsim.games.fliptoons import rules as game_rules  # (``rules``: prepare's argument)
from boardsim.games.fliptoons.explain import Table, flip, format_trace, score_grid
from boardsim.games.fliptoons.policies import POLICY_WIDTH, encode_priority, policies

__all__ = ["GAME", "FlipToons", "Table", "flip", "score_grid"]

_DEFAULT_NAMES = _cards.names(_cards.load_table())


class FlipToons(Game):
    name = "fliptoons"
    title = "FlipToons (Season 1)"
    rules_page = "docs/rules/fliptoons.md"
    min_players = 1
    max_players = 4
    default_players = 2
    options = game_rules.OPTIONS
    policies = policies(_DEFAULT_NAMES)
    default_policy = "fame_per_cost"
    progress_measure = "fame at each round's Check Fame (the last round: the final score, after the Final Flip)"
    patch_default_fields = ("fame",)  # a card's own fame: the field that moves its strength most directly
    seat_counters = state.SEAT_COUNTERS
    game_counters = state.GAME_COUNTERS
    end_reasons = state.END_REASONS
    balance = balance
    card_module = _cards
    max_chunk_deals = 5_000  # per-card statistics make each result row a few kB
    min_task_games = 10_000  # ~30,000 games per core-second
    card_sets = ("season1",)
    # the decision view for the default card table; prepare uses the cell's own card names
    rule_actions = decide.rule_actions(_DEFAULT_NAMES)
    rule_features = decide.decision_features(_DEFAULT_NAMES)

    def prepare(
        self,
        n_players: int,
        seats: Sequence[Seat],
        rules: Mapping[str, Any] | None,
        cards: pd.DataFrame,
    ) -> Prepared:
        resolved = self.resolve_rules(n_players, seats, rules)
        try:  # the checks across options (prices, actions), keyed rules.<name> like resolve_rules' own
            rule_vec = game_rules.encode_rules(resolved)
            prices = game_rules.encode_prices(resolved)
        except BadInput as e:
            raise (e if e.key.startswith("rules.") else e.under("rules")) from None
        card_arr, values, names = _cards.derived(cards)
        pols = policies(names)
        for i, seat in enumerate(seats):
            if seat.policy == "priority":
                order = (seat.params or {}).get("order", [])
                unknown = [n for n in order if n not in names]
                if unknown:
                    raise BadInput(f"seats[{i}].params.order",
                                   f"unknown card {unknown[0]!r} (known: {', '.join(names)})")
        matrix = self.policy_matrix(seats, POLICY_WIDTH)
        prio = encode_priority(seats, pols, names)
        user_arrays = self._user_arrays(seats, names)
        col = _cards.C_SOLO if n_players == 1 else _cards.C_COPIES
        starters = card_arr[:, _cards.C_STARTER] != 0
        toon_total = int(card_arr[~starters, col].sum())
        start_total = int(card_arr[starters, col].sum())
        if start_total == 0:
            raise BadInput("cards", "the starting deck is empty (every starter has 0 copies)")
        arrays = {
            "cards": card_arr,
            "rules": rule_vec,
            "prices": prices,
            "policies": matrix,
            "priority": prio,
            "values": values,
            # capacities: one player can end up owning every card
            "sizes": np.array([start_total + toon_total + 2, toon_total + 2], dtype=np.int64),
            # the search's action buffer: every market slot, every grid card and passing, with sub-choices
            "mcts": self._mcts_rows(seats, pols, mcts.legal_size(len(prices), start_total + toon_total + 2)),
            **user_arrays,
        }
        prepared = Prepared(self.name, n_players, list(seats), resolved, arrays, stable_hash(cards, resolved))
        prepared.card_names = names  # type: ignore[attr-defined]
        return prepared

    def learned_view(self, cards: Any = None) -> LearnedView:
        """The decision features (with one ``count_<Card>`` per card) and candidate columns of
        docs/rules/fliptoons.md; one weight per card and kind of action (hire, dismiss).  ``cards``: a card
        table or its names (None: the bundled cards)."""
        names = (_DEFAULT_NAMES if cards is None else list(cards) if not isinstance(cards, pd.DataFrame)
                 else _cards.names(cards))
        features = decide.DECISION_FEATURES + tuple(decide.count_feature(n) for n in names)
        return LearnedView(features, tuple(decide.CANDIDATE_COLUMNS), ("market",), decide.X_CARD, len(names),
                           decide.X_KIND, 2)

    def _mcts_rows(self, seats: Sequence[Seat], pols: Sequence[Any], branching: int) -> np.ndarray:
        """Each seat's mcts row (mcts.M_*; zeros for other seats), its pool checked against the memory limit."""
        return tree.seat_rows(seats, next(p for p in pols if p.name == "mcts"), mcts, branching,
                              int(numba.config.NUMBA_NUM_THREADS),
                              lambda v: self.policy_matrix([Seat(v["playout"])], POLICY_WIDTH)[0])

    def _user_arrays(self, seats: Sequence[Seat], names: Sequence[str]) -> dict[str, np.ndarray]:
        """The rules seats' compiled rules and every open seat's $params (kernel.RULE_ARRAYS); checks custom
        scorers too, so a bad function fails here, before any game."""
        seats = self.search_user_seats(seats)
        arrays = self.seat_rules(seats, decide.rule_actions(names), decide.decision_features(names), names)
        self.seat_scorers(seats)
        custom_seats = [i for i, s in enumerate(seats) if s.policy in ("custom", "learned")]
        rule_flags, seat_flags = decide.rule_flags(arrays, len(seats), custom_seats, len(names))
        return dict(zip(kernel.RULE_ARRAYS, (*arrays, rule_flags, seat_flags), strict=True))

    def _users(self, prepared: Prepared) -> tuple:
        """The rule arrays and the four seats' scorers, in the engine's argument order."""
        return (*kernel.rule_arrays(prepared), self.seat_scorers(self.search_user_seats(prepared.seats)))

    # the seats the lean engine plays: none needs the rule arrays, scorers, private flips or lookahead state
    FULL_ENGINE = frozenset({USER, SCRATCH, LOOKAHEAD})

    def play(self, prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
        P = prepared.n_players
        K = prepared["cards"].shape[0]
        rounds = int(prepared["rules"][state.R_MAX_ROUNDS])
        score, win, seat_out, game_out = self.new_results(count, P)
        stats = np.zeros((count, state.N_STATS, P, K), dtype=np.int32)
        round_fame = np.zeros((count, P, rounds), dtype=np.int16)
        maxc, T = (int(x) for x in prepared["sizes"])
        needs = self.cell_needs(prepared)
        if SEARCH in needs:  # the mcts engine variant (mcts.py), compiled only for such cells
            mcts.run(cell_key, start, P, _consts(prepared), maxc, T, self._users(prepared), prepared["mcts"],
                     (score, win, game_out, seat_out, stats, round_fame))
            return self._outputs(score, win, game_out, seat_out, stats, round_fame, prepared.progress)
        lean = not needs & self.FULL_ENGINE
        kernel.batch_kernel(lean)(
            kernel.engine(lean), np.uint64(cell_key), np.int64(start), P, prepared["cards"], prepared["rules"],
            prepared["prices"], prepared["policies"], prepared["priority"], prepared["values"], maxc, T,
            *self._users(prepared), *kernel.FUNCTIONS, score, win, game_out, seat_out, stats, round_fame,
        )
        return self._outputs(score, win, game_out, seat_out, stats, round_fame, prepared.progress)

    def play_stepped(self, prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
        """``play``'s games through the step interface alone (kernel.play_stepped: every seat stopped at each
        decision, its legal actions listed, its policy's choice applied); score, win and the counters, not
        the per-card statistics.  Seats with a custom scorer are not supported (their scorers travel only in
        ``play``)."""
        P = prepared.n_players
        K = prepared["cards"].shape[0]
        rounds = int(prepared["rules"][state.R_MAX_ROUNDS])
        maxc, T = (int(x) for x in prepared["sizes"])
        score, win, seat_out, game_out = self.new_results(count, P)
        write_row = getattr(kernel._write_row, "py_func", kernel._write_row)  # plain Python: nothing to compile
        for i in range(count):
            kept = state.Outputs(np.zeros((state.N_STATS, P, K), np.int32), np.zeros((P, rounds), np.int16),
                                 np.zeros((1, state.LOG_W), np.int32))  # one log row: logging off
            final, bad = kernel.play_stepped(np.uint64(cell_key), np.int64(start + i), P, kernel.consts(prepared),
                                             kernel.rule_arrays(prepared), kernel.custom_none(), maxc, T, kept)
            if bad:
                raise RuntimeError(f"game {start + i}: {bad} chosen actions were not in the legal list")
            write_row(i, final, score, win, game_out, seat_out)
        return self.result_arrays(score, win, game_out, seat_out)

    def _outputs(self, score: np.ndarray, win: np.ndarray, game_out: np.ndarray, seat_out: np.ndarray,
                 stats: np.ndarray, round_fame: np.ndarray, progress: bool = False) -> dict[str, np.ndarray]:
        out = self.result_arrays(score, win, game_out, seat_out)
        # views into the kernel's one stats block (a copy of each cost about 3% of a sweep)
        out["owned"] = stats[:, state.ST_OWNED]
        out["hired"] = stats[:, state.ST_HIRED]
        out["dismissed"] = stats[:, state.ST_DISMISSED]
        out["kind_fame"] = stats[:, state.ST_FAME]
        out["appearances"] = stats[:, state.ST_APPEAR]  # face-up in a Check Fame
        out["round_fame"] = round_fame
        if progress:
            # feel's progress measure: fame at each Check Fame (recorded in every cell: balance reads it), the last
            # round's replaced by the final score, which the Final Flip (and any tie re-flip) settles after it
            prog = round_fame.astype(np.int64)
            last = np.clip(out["rounds"] - 1, 0, prog.shape[2] - 1)
            prog[np.arange(len(score)), :, last] = score
            out["progress"] = prog
        return out

    def favour(self, card: str, base: Seat | None = None) -> Seat:
        """Hire ``card`` whenever it is affordable, otherwise play ``base``: fame_per_cost (as priority with
        that fallback), mcts or learned (their ``favour`` list)."""
        base = base or Seat(self.default_policy, {})
        if base.policy in ("mcts", "learned"):
            return Seat(base.policy, {**base.params, "favour": [card]})
        if base.policy == "fame_per_cost" and not base.params:
            return Seat("priority", {"order": [card], "fallback": "fame_per_cost"})
        raise BadParameter("base", f"cannot favour a card while playing {base.label()}; allowed: fame_per_cost "
                                     "(default parameters), mcts(...) or learned(...)")

    def avoid(self, card: str, base: Seat | None = None) -> Seat:
        """``base`` that never hires ``card`` and plays every other decision as itself (its ``avoid`` option):
        fame_per_cost, priority, mcts or learned."""
        base = base or Seat(self.default_policy, {})
        if base.policy in ("fame_per_cost", "priority", "mcts", "learned"):
            return Seat(base.policy, {**base.params, "avoid": [card]})
        raise BadParameter("base", f"cannot avoid a card while playing {base.label()}; allowed: fame_per_cost, "
                                     "priority, mcts(...) or learned(...)")

    def market_cards(self, table: pd.DataFrame) -> list[str]:
        market = table[(table["starter"] == 0) & (table["copies"] > 0)]
        return list(market["name"])

    replay_round_header = r"^== Round (\d+)\b"

    replay_headline = ("fame", "leader_fame", "spend", "actions", "deck_size", "toon_left")

    def replay_table(self, block: str) -> dict[str, Any] | None:
        """Each seat's grid as the round's flip shows it (every card face up: public), with each card's fame."""
        grids: list[list[dict[str, Any]]] = []
        for line in block.splitlines():
            if re.match(r"^  P\d+ grid:", line):
                grids.append([])
            elif grids and (m := re.match(r"^    r(\d+)c(\d+): \[(.*)\]", line)):
                grids[-1].append({"r": int(m.group(1)), "c": int(m.group(2)), "card": m.group(3), "fame": None})
            elif grids and line.startswith("    fame: "):
                fames = [part.rsplit(" ", 1)[-1] for part in line.removeprefix("    fame: ").split(", ")]
                for cell, fame in zip(grids[-1], fames, strict=False):
                    cell["fame"] = fame
        return {"kind": "grids", "grids": grids} if grids else None

    def describe_option(self, kind: str, row: Mapping[str, float], cards: Any = None) -> str:
        names = list((self.card_table() if cards is None else cards)["name"])
        k = int(row["card"])
        name = names[k] if 0 <= k < len(names) else f"card {k}"
        if row["kind"] == decide.KIND_PASS:
            return "pass"
        if row["kind"] == decide.KIND_DISMISS:
            return f"dismiss {name} (slot {int(row['slot'])}) for {int(row['price'])}"
        return f"hire {name} for {int(row['price'])} (gain {row['gain']:.2f})"

    def trace(self, prepared: Prepared, cell_key: int, index: int) -> str:
        maxc, T = (int(x) for x in prepared["sizes"])
        rounds = int(prepared["rules"][state.R_MAX_ROUNDS])
        if SEARCH in self.cell_needs(prepared):
            score, win, game_out, log, dlog = mcts.trace_game(
                cell_key, index, prepared.n_players, _consts(prepared), maxc, T, self._users(prepared),
                prepared["mcts"], 200_000, rounds)
            return format_trace(prepared, score[0], win[0], game_out[0], log, mcts_notes(log, dlog))
        score, win, game_out, log = kernel.trace_game(
            np.uint64(cell_key), np.int64(index), prepared.n_players, prepared["cards"], prepared["rules"],
            prepared["prices"], prepared["policies"], prepared["priority"], prepared["values"], maxc, T,
            200_000, rounds, self._users(prepared), lean=not self.cell_needs(prepared) & self.FULL_ENGINE,
        )
        return format_trace(prepared, score[0], win[0], game_out[0], log)

    def trace_scores(self, trace: str) -> list[int]:
        """The ``scores P0 <n>, P1 <n>`` of the closing ``== End: ...`` line."""
        end = trace[trace.rindex("== End: "):].split("; ")[1]
        return [int(m.group(2)) for m in sorted(re.finditer(r"P(\d+) (-?\d+)", end), key=lambda m: int(m.group(1)))]


def _consts(prepared: Prepared) -> tuple:
    """cards, rules, prices, policies, priority, values: the engine's Consts in argument order."""
    return tuple(np.ascontiguousarray(prepared[k]) for k in ("cards", "rules", "prices", "policies", "priority",
                                                               "values"))


def mcts_notes(log: np.ndarray, dlog: np.ndarray) -> dict[int, str]:
    """Per event-log row, the note on the mcts choice it shows: each decision's first hire, dismissal or
    end-of-turn event of its seat at or after the log row the decision was made at."""
    notes: dict[int, str] = {}
    shown = (state.EV_HIRE, state.EV_DISMISS, state.EV_TURN)
    for logn, seat, _a, visits, iterations in dlog.tolist():
        for r in range(logn, len(log)):
            if int(log[r, 0]) in shown and int(log[r, 1]) == seat:
                if iterations > 0:
                    notes[r] = f"(mcts: {visits} of {iterations} visits)"
                else:
                    notes[r] = "(mcts: the only legal action)"
                break
    return notes


GAME = FlipToons()
