"""What every game gives the runner: options, policies, cards and a batch kernel.

A game module ``boardsim/games/<name>/__init__.py`` exposes ``GAME``, an
instance of a ``Game`` subclass.  The runner only talks to this interface:

1. ``game.card_table(edits, card_file)`` -> validated ``pandas.DataFrame`` of cards.
2. ``game.prepare(n_players, seats, rules, cards)`` -> a ``Prepared``
   holding the NumPy arrays the jitted kernel reads (rules vector, policy
   matrix, card arrays).  All validation happens here and raises
   ``BadInput``.
3. ``game.play(prepared, cell_key, start, count)`` -> ``dict`` of result arrays
   for games ``start .. start+count-1`` of the cell whose 64-bit key is
   ``cell_key``.  Game ``i`` must be seeded with ``rng.game_seed(cell_key, i)``
   and nothing else, so results never depend on chunking or threads.  ``play`` runs the engine variant
   compiled for ``game.cell_needs(prepared)``: the union of the seats' ``Policy.needs``.
4. ``game.trace(prepared, cell_key, index)`` -> the text of one game, ``game.trace_scores(text)`` its final
   scores, and ``game.play_stepped(...)`` ``play``'s games through the step interface the search player uses.

``tests/games/test_contract.py`` checks every game against this contract; docs/guide/add-a-game.md is the
checklist a new game follows.

Result arrays (``n`` = count, ``P`` = players):

- ``score`` (n, P) int64: final score of each seat.
- ``win`` (n, P) float64: win share (1 for a sole winner, 1/k for a k-way
  shared win, 0 otherwise; a game with no winner has an all-zero row).
- ``rounds``, ``first_player``, ``end`` (n,) int64: rounds played, the seat
  that started, and the index into ``game.end_reasons`` of how it ended.
- one (n, P) array per name in ``seat_counters`` and one (n,) array per name
  in ``game_counters``.

The runner adds ``seed`` (uint64) and ``game`` (index in the cell).
"""

from __future__ import annotations

import importlib
import io
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from boardsim import custom, learned
from boardsim.errors import BadInput
from boardsim.options import MAX_FIELD, Option, resolve_options  # noqa: F401  (re-exported: the games use them)
from boardsim.rulelist import Action, RuleArrays, compile_rules, pack_seats, rule_params
from boardsim.seat import Seat, stable_hash  # noqa: F401  (re-exported: the games' public vocabulary)


@dataclass(frozen=True)
class Policy:
    """A bot: a code the jitted policy interpreter switches on, plus parameters.

    An ``open`` policy (``rules``, ``custom``) also takes any other numeric parameter a seat gives it:
    those are the ``$params`` of its rules or the ``params`` vector of its scorer, sweepable and tunable
    like declared ones.
    """

    name: str
    code: int
    doc: str
    params: tuple[Option, ...] = ()
    open: bool = False
    # a search policy names the parameter that counts its rollouts per decision (``iterations``,
    # ``playouts``): a cell with such a seat costs that many more games, and is cut into smaller chunks
    rollouts: str = ""
    # the engine code a seat of this policy needs beyond the plain engine (names in NEEDS): a game compiles
    # an engine variant per set of needs, and a cell runs the one for the union of its seats' needs
    # (Game.cell_needs).  A game whose need depends on a seat's parameters or compiled tables refines it in
    # Game.seat_needs (Art Deco, Wagons).
    needs: frozenset[str] = frozenset()

    def options_for(self, given: Mapping[str, Any] | None) -> tuple[Option, ...]:
        """The declared parameters, plus for an open policy one number per other name in ``given``."""
        if not self.open:
            return self.params
        declared = {o.name for o in self.params}
        extra = tuple(Option(k, v, "a $param of this seat", "float") for k, v in sorted((given or {}).items())
                      if k not in declared)
        return self.params + extra


# The needs a policy may declare (Policy.needs), each a part of an engine that a cell without it never compiles:
USER = "user"  # a seat asked at each decision: a rule list or a scorer (the rule arrays and scorers' code)
SEARCH = "search"  # a tree search (the mcts variant: the step interface and the search)
FAST = "fast"  # Wagons' fast placement estimate (fast.py)
SCRATCH = "scratch"  # FlipToons' private flips (synergy): the engine's scratch state
LOOKAHEAD = "lookahead"  # FlipToons' flat Monte Carlo (lookahead): playouts inside a decision
NEEDS = frozenset({USER, SEARCH, FAST, SCRATCH, LOOKAHEAD})


def rules_policy(code: int, doc: str) -> Policy:
    """A game's ``rules`` policy: an ordered rule list over its decision features (docs/policies.md)."""
    return Policy("rules", code, doc, (LABEL, RULES), open=True, needs=frozenset({USER}))


def custom_policy(code: int, doc: str) -> Policy:
    """A game's ``custom`` policy: a user's @njit scorer over its candidates (boardsim.custom)."""
    return Policy("custom", code, doc, (LABEL, FUNCTION), open=True, needs=frozenset({USER}))


def learned_policy(code: int, doc: str, extra: tuple[Option, ...] = ()) -> Policy:
    """A game's ``learned`` policy (boardsim.learned): a model fitted to a search player's choices, scoring the
    same candidates as a ``custom`` scorer and through the same engine code (``code`` is the game's custom
    code); its model and temperature travel in the seat's scorer parameters (Game.learned_params); ``extra``:
    the game's own options (FlipToons: ``favour``, for ``cards --base learned``)."""
    return Policy("learned", code, doc, (LABEL, MODEL, TEMPERATURE, *extra), needs=frozenset({USER}))


# The seat parameters every open policy declares: a report label, and its rules or scorer.
LABEL = Option("name", "", "a short label for reports and tables (default: the policy and a digest)", "name")
RULES = Option("rules", (), "the ordered rule list (docs/policies.md)", "rules")
FUNCTION = Option("function", "", "\"module:function\" naming an @numba.njit scorer (docs/policies.md)",
                  "function")
# the learned policy's own parameters: its model file and how greedily it plays
MODEL = Option("model", "", "the model file written by `boardsim learn` (empty: the bundled model for the "
               "table's player count)", "model")
TEMPERATURE = Option("temperature", 0.0, "0 takes the model's best action; above 0 samples from "
                     "softmax(score / temperature)", "float", 0.0, 100.0)


class LearnedView(NamedTuple):
    """A table's decision view, as a ``learned`` model sees it (boardsim.learned.Model)."""

    features: tuple[str, ...]  # the feature vector a scorer receives
    columns: tuple[str, ...]  # the candidate matrix's columns
    kinds: tuple[str, ...]  # the decisions a scorer is asked (Art Deco: bid, buy, sell)
    cat_col: int = -1  # the categorical column the model gives one weight per value (-1: none)
    cat_size: int = 0
    cat2_col: int = -1  # a second categorical column crossed with it (-1: none)
    cat2_size: int = 1
    # features a fitted model leaves out (boardsim.analysis.fit.template gives them spread 0): Art Deco's that
    # change within an auction, so that its bids are limits worked out once per auction
    left_out: tuple[str, ...] = ()


@runtime_checkable
class BalanceModule(Protocol):
    """A game's balance module (``boardsim/games/<name>/balance.py``): the sums a sweep keeps per chunk, the
    tables it makes of them, and the report's captions for their charts."""

    # report captions by table name (``balance_<name>.csv``); {} when no chart needs one
    CHART_NOTES: Mapping[str, str]

    def chunk_stats(self, out: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]: ...

    def balance_tables(self, cell: Any, stats: Mapping[str, np.ndarray], games: int) -> dict[str, pd.DataFrame]: ...


class CardModule(Protocol):
    """A game's cards module, for the shared ``Game.card_table``: the bundled or a user's table, and edits.

    ``FIELDS`` declares, once, the integer card fields an edit, ``cards --sweep`` and ``patch`` may vary
    and the bounds an edit is held to."""

    FIELDS: Mapping[str, tuple[int, int]]

    def load_table(self, card_file: str | None = None) -> pd.DataFrame: ...

    def apply_edits(self, table: pd.DataFrame, edits: Mapping[str, Mapping[str, Any]] | None) -> pd.DataFrame: ...


class Steps(Protocol):
    """A game stepped from Python, one decision at a time: the step API every game names the same way
    (``Game.steps``).  It runs the game's own jitted step functions, the ones its search player plays with,
    so a game stepped here is the game the engine plays; tests/games/test_random_play.py drives every game
    through it with random legal actions.

    ``setup(index)`` deals game ``index`` of the cell (seeded as the batch kernel seeds it) and advances to
    its first decision; ``to_move()`` is the seat to decide (-1 once over); ``legal()`` the actions it may
    take (integers, each game's encoding, documented in its step.py); ``apply(action)`` takes one and
    advances to the next decision or the end; ``is_over()``; ``returns()`` the finished game's scores and
    win shares as the batch kernel writes them; ``state`` the engine's arrays (read only)."""

    n_players: int

    def setup(self, index: int) -> None: ...

    def to_move(self) -> int: ...

    def is_over(self) -> bool: ...

    def legal(self) -> list[int]: ...

    def apply(self, action: int) -> None: ...

    def returns(self) -> tuple[np.ndarray, np.ndarray]: ...


# Win shares are 1/k for a k-way tie with k <= 4, so WIN_UNITS x share is a whole number: every sum of
# win shares a sweep keeps (runner.Aggregate, sums, the balance modules) is exact in these units.
WIN_UNITS = 12


@dataclass
class Prepared:
    """Everything a kernel needs for one grid cell, already encoded as arrays."""

    game: str
    n_players: int
    seats: list[Seat]
    rules: dict[str, Any]
    arrays: dict[str, np.ndarray]
    rules_hash: str
    # record each seat's progress measure at the end of every round (``play``'s ``progress`` output, what
    # ``feel`` reads); a cell without it passes the engine a zero-round array: nothing recorded, no new compile
    progress: bool = False

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]


def apply_integer_edits(
    table: pd.DataFrame,
    edits: Mapping[str, Mapping[str, Any]] | None,
    ranges: Mapping[str, tuple[int, int | None]],
) -> pd.DataFrame:
    """``table`` (rows named by its ``name`` column) with ``{card: {field: value}}`` applied.

    ``ranges`` maps each editable integer field to its (low, high) bounds, high ``None`` for
    ``MAX_FIELD``.  Errors are BadInput keyed ``cards.<card>[.<field>]``.
    """
    table = table.copy()
    names = list(table["name"])
    fields_known = ", ".join(ranges)
    for card, fields in (edits or {}).items():
        if card not in names:
            raise BadInput(f"cards.{card}", f"unknown card {card!r} (known: {', '.join(names)})")
        if not isinstance(fields, Mapping):
            raise BadInput(f"cards.{card}", f"expected a table of fields ({fields_known})")
        for name, value in fields.items():
            key = f"cards.{card}.{name}"
            if name not in ranges:
                raise BadInput(key, f"unknown card field {name!r} (known: {fields_known})")
            lo, hi = ranges[name]
            hi = MAX_FIELD if hi is None else hi
            ok = not isinstance(value, bool) and isinstance(value, (int, np.integer))
            if not ok or value < lo or value > hi:
                allowed = f"an integer in [{lo}, {hi}]"
                raise BadInput(key, f"got {value!r}; allowed: {allowed}")
            table.loc[table["name"] == card, name] = int(value)
    return table




def read_card_csv(path: str, key: str = "card_file") -> pd.DataFrame:
    """A user's card CSV as text cells (``dtype=str``, nothing read as NaN).

    BadInput ``key`` naming the file when it is missing, a folder, empty, not UTF-8 or not CSV.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except IsADirectoryError:
        raise BadInput(key, "is a folder, not a CSV file", path) from None
    except OSError as e:
        raise BadInput(key, f"cannot read card file: {e.strerror or e}", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(key, f"not a UTF-8 text file (byte {e.start})", path) from None
    if not text.strip():
        raise BadInput(key, "the card file is empty (expected a header row and one row per card)", path)
    if "\0" in text:
        raise BadInput(key, "not a text file (it holds NUL bytes)", path)
    try:
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as e:
        raise BadInput(key, f"cannot read card file: {e}", path) from None


def int_cell(text: Any, key: str, low: int, high: int, file: str | None) -> int:
    """A whole number in [low, high] from a CSV cell; BadInput naming ``key`` (row and column)."""
    raw = str(text).strip()
    try:
        value = int(raw)
    except ValueError:
        raise BadInput(key, f"got {raw!r}; allowed: a whole number in [{low}, {high}]", file) from None
    if not low <= value <= high:
        raise BadInput(key, f"got {value}; allowed: a whole number in [{low}, {high}]", file)
    return value


def pointer_kernel(kernel: Any, engine: Any, kernel_sig: Any, engine_sig: Any) -> Any:
    """A prange batch ``kernel`` that calls ``engine`` through a function pointer, compiled on first use.

    ``kernel``'s first argument is typed ``FunctionType(engine_sig)``, so numba calls the engine through
    its address instead of linking (and re-optimising) the engine's code into the kernel, its gufunc and
    their wrappers.  Such an argument needs an explicit signature; compiling here, rather than in the
    decorator, keeps ``import boardsim`` from compiling every game.  Later calls cannot compile a
    second, statically linked variant.
    """
    if not hasattr(kernel, "signatures"):  # NUMBA_DISABLE_JIT=1: plain Python functions, nothing to compile
        return kernel
    if not kernel.signatures:
        # Compiled in a fresh thread, whose Python frame stack starts empty: CPython 3.11 frees a frame-stack
        # chunk whenever the stack shrinks below it and maps a new one when it grows again, and numba's
        # deeply recursive typing crossed such a boundary often enough from some callers' depths to cost
        # 1.6M page faults and 5 s of system time in a cold Wagons compile (0.3M and 1 s from a fresh thread).
        failed: list[BaseException] = []

        def build() -> None:
            try:
                engine.compile(engine_sig)
                kernel.compile(kernel_sig)
            except BaseException as exc:  # re-raised in the caller's thread below
                failed.append(exc)

        worker = threading.Thread(target=build, name="boardsim-compile")
        worker.start()
        worker.join()
        if failed:
            raise failed[0]
        kernel.disable_compile()
    return kernel


class Game(ABC):
    """Interface each game implements; see the module docstring and docs/guide/add-a-game.md."""

    name: str
    title: str
    # the game's rules page: every option, policy and policy parameter is documented there
    # (tests/games/test_contract.py checks it)
    rules_page: str
    min_players: int
    max_players: int
    default_players: int
    options: tuple[Option, ...]
    policies: tuple[Policy, ...]
    default_policy: str
    seat_counters: tuple[str, ...] = ()
    game_counters: tuple[str, ...] = ()
    end_reasons: tuple[str, ...] = ("normal",)
    card_sets: tuple[str, ...] = ("default",)
    max_chunk_deals: int = 50_000  # lower it for games whose result rows are large
    # games a task (one chunk) should hold at least, about half a second on one core: a cell is split into
    # runner.TASKS_PER_CELL chunks when it is big enough, so workers share it, but never into tasks so small
    # that shipping and adding them costs more than playing them (runner.chunk_deals)
    min_task_games: int = 100_000
    # the game's cards module, read by the shared card_table (a game with more than one table overrides it)
    card_module: CardModule | None = None

    # -- cards ---------------------------------------------------------------
    def card_table(
        self, edits: Mapping[str, Mapping[str, Any]] | None = None, card_file: str | None = None
    ) -> pd.DataFrame:
        """The card table with ``edits`` ({card name: {field: value}}) applied.

        Raises BadInput with key ``cards.<name>.<field>`` for unknown cards,
        fields or bad values, and names the file and row for a bad card file.
        """
        if self.card_module is None:
            raise NotImplementedError(f"{type(self).__name__} sets no card_module and does not override card_table")
        return self.card_module.apply_edits(self.card_module.load_table(card_file), edits)

    # -- encoding ------------------------------------------------------------
    @abstractmethod
    def prepare(
        self,
        n_players: int,
        seats: Sequence[Seat],
        rules: Mapping[str, Any] | None,
        cards: pd.DataFrame,
    ) -> Prepared:
        """Validate and encode one cell. Raises BadInput."""

    # -- running -------------------------------------------------------------
    @abstractmethod
    def play(self, prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
        """Play games ``start..start+count-1`` of a cell with the jitted batch kernel."""

    @abstractmethod
    def trace(self, prepared: Prepared, cell_key: int, index: int) -> str:
        """A readable log of one game, produced by the same jitted code."""

    @abstractmethod
    def play_stepped(self, prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
        """``play``'s games driven through the game's step interface (the one the search player uses): every
        decision stopped at, the seat's policy asked, its action applied.  ``score`` and ``win`` at least
        (tests/games/test_contract.py: they equal ``play``'s)."""

    def recorder(self, needed_by: str = "learn") -> Any:
        """The game's decision recorder (``boardsim/games/<game>/record.py``): every decision where a seat had a
        choice, with the view a scorer gets there and what the seat chose (``learn`` fits models to it,
        ``replay`` shows it).  BadInput naming ``needed_by`` for a game without one."""
        try:
            return importlib.import_module(f"{type(self).__module__}.record")
        except ImportError:
            raise BadInput("game", f"{self.title} has no decision recorder; `{needed_by}` needs one") from None

    def steps(self, prepared: Prepared, cell_key: int) -> Steps:
        """The cell's games stepped from Python, a decision at a time (``Steps``): game i of a cell with key
        ``cell_key`` is the game ``play`` plays as game i."""
        module = importlib.import_module(f"{type(self).__module__}.steps")
        return module.Steps(prepared, cell_key)

    @abstractmethod
    def trace_scores(self, trace: str) -> list[int]:
        """Each seat's final score as ``trace`` prints it (tests/games/test_contract.py: they equal ``play``'s
        scores of the same game)."""

    def new_results(self, count: int, n_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Zeroed (score, win, seat_out, game_out) for ``count`` games in the kernels' common layout: (n, P)
        int64 scores and float64 win shares, one seat_out column per ``seat_counters`` name and game_out's
        rounds, first_player, end, then one column per ``game_counters`` name (see ``result_arrays``)."""
        return (np.zeros((count, n_players), dtype=np.int64), np.zeros((count, n_players), dtype=np.float64),
                np.zeros((count, n_players, len(self.seat_counters)), dtype=np.int64),
                np.zeros((count, 3 + len(self.game_counters)), dtype=np.int64))

    # -- engine variants -----------------------------------------------------
    def seat_needs(self, prepared: Prepared, seat: int) -> frozenset[str]:
        """What seat ``seat`` of a prepared cell needs of the engine: its policy's declared ``needs``.  A game
        whose need depends on the seat's parameters or compiled tables overrides this."""
        return self.policy(prepared.seats[seat].policy).needs

    def cell_needs(self, prepared: Prepared) -> frozenset[str]:
        """The union of the seats' needs: ``play`` and ``trace`` run the engine variant compiled for it."""
        out: frozenset[str] = frozenset()
        for i in range(prepared.n_players):
            out |= self.seat_needs(prepared, i)
        return out

    # -- feel: the score over time (docs/guide/feel.md) -----------------------
    # what ``play``'s ``progress`` output holds: (n, P, R) each seat's progress measure after each round (R the
    # most rounds a game of the cell can have; rounds after the game's last (its ``rounds``) are not read)
    progress_measure: str = "score"

    def feel_rounds(self, out: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(progress (n, P, R), rounds (n,), turns (n,)) as feel reads a game: by default the engine's rounds,
        every seat taking one turn in each.  A game whose rounds are single turns groups them (Wagons)."""
        P = out["progress"].shape[1]
        return out["progress"], out["rounds"], out["rounds"] * P

    def feel_groups(self, out: Mapping[str, np.ndarray], cards: Any) -> tuple[str, list[str], np.ndarray] | None:
        """A split of the feel figures by something dealt at random in each game, so that a group's difference
        is its effect: (what a group is, the groups' names, (n, G) bool, game i holds group g); None (the
        default) where nothing dealt varies from game to game."""
        return None

    def standing(self, out: Mapping[str, np.ndarray], rules: Mapping[str, Any]) -> np.ndarray:
        """(n, P, R) keys: after round r the seat with the highest key leads (it would win if the game ended
        there; equal highest keys: nobody leads).  Default: the progress measure itself."""
        return np.asarray(out["progress"], dtype=np.float64)

    # -- replay: one deal as a step-through page (docs/guide/replay.md) ----------
    replay_round_header: str = r"^Round (\d+)\b"  # a trace line that opens a round (group 1: its number)
    replay_round_feature: str = "round"  # the decision feature that holds the round a decision is in
    replay_round_base: int = 0  # added to that feature's value: the round's number as the trace writes it
    replay_round_name: str = "round"  # what the engine's rounds (``play``'s ``rounds``, progress columns) are
    replay_headline: tuple[str, ...] = ()  # decision features the page draws large, above the options
    replay_table_lag: int = 0  # a step shows the table of its round's block (0) or of the round before (1)

    def replay_table(self, block: str) -> dict[str, Any] | None:
        """The public table a round's trace block shows, as numbers the replay page draws (FlipToons: each seat's
        grid at the round's flip; Circle the Wagons: both towns after the turn), or None (the default: the
        decision view's numbers say it all)."""
        return None

    def describe_option(self, kind: str, row: Mapping[str, float], cards: Any = None) -> str:
        """One option of a recorded decision in words: ``kind`` is the decision's kind (the recorder's), ``row``
        its candidate row by column name, ``cards`` the cell's card table.  Default: the row's numbers."""
        return ", ".join(f"{k} {v:g}" for k, v in row.items())

    # -- game-specific analysis (optional) -----------------------------------
    # A game's balance module, or None.
    balance: BalanceModule | None = None

    def chunk_stats(self, out: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Sums over one chunk of results (slot order) that the sweep adds up per cell.

        Values must be fixed-shape arrays of whole numbers (or exact floats), so
        the sum is the same whatever the chunking.  Games without a balance module have none.
        """
        return self.balance.chunk_stats(out) if self.balance is not None else {}

    def balance_tables(self, cell: Any, stats: Mapping[str, np.ndarray], games: int) -> dict[str, pd.DataFrame]:
        """Tidy tables (name -> frame, written as ``balance_<name>.csv``) from summed chunk_stats."""
        return self.balance.balance_tables(cell, stats, games) if self.balance is not None else {}

    def chart_notes(self) -> dict[str, str]:
        """The balance module's captions for its charts, by table name (the report prints them)."""
        return dict(self.balance.CHART_NOTES) if self.balance is not None else {}

    # decisions one seat makes in a typical game, and how much of a game a rollout plays on average:
    # with the rollouts a search seat plays per decision they estimate a game's cost (search_cost)
    decisions_per_seat: float = 20.0
    rollout_share: float = 0.5

    def search_cost(self, seats: Sequence[Seat]) -> float:
        """A game of ``seats`` in units of a game of plain policies: 1, plus for each search seat its
        rollouts per decision x ``decisions_per_seat`` x ``rollout_share``.  The runner cuts a cell into
        chunks that many times smaller, so that a search cell's progress shows and a killed run keeps
        its finished chunks."""
        cost = 1.0
        for seat in seats:
            pol = self.policy(seat.policy)
            if pol.rollouts:
                default = next(o.default for o in pol.params if o.name == pol.rollouts)
                n = seat.params.get(pol.rollouts, default)
                if isinstance(n, (int, float)) and not isinstance(n, bool) and n > 0:
                    cost += float(n) * self.decisions_per_seat * self.rollout_share
        return cost

    def favour(self, card: str, base: Seat | None = None) -> Seat:
        """A seat that plays as ``base`` (default: the game's default policy) but goes out of its way to
        acquire ``card`` (for win-rate-added experiments); BadParameter keyed ``base`` for a base it cannot
        make favour a card (the CLI says ``--base``)."""
        raise BadInput("game", f"{self.title} has no policy that favours a card; card strength needs one")

    def avoid(self, card: str, base: Seat | None = None) -> Seat:
        """``base`` made never to take ``card`` (card strength's ban arm); a game without one refuses."""
        raise BadInput("game", f"{self.title} has no policy that avoids a card; card strength needs one")

    def market_cards(self, table: pd.DataFrame) -> list[str]:
        """Cards a player can choose to acquire (the subjects of card-strength experiments)."""
        return []

    patch_default_fields: tuple[str, ...] = ()  # the fields ``patch`` edits unless told others
    # the objective ``patch`` judges unless told another: "cards" where a card's strength can be measured
    patch_default_objective: str = "cards"

    def card_fields(self, table: pd.DataFrame) -> list[str]:
        """The table's integer card fields that ``cards --sweep`` can vary, in the table's order: those the
        game's card module declares in ``FIELDS``."""
        fields = self.card_module.FIELDS if self.card_module is not None else {}
        return [str(c) for c in table.columns if c in fields]

    def patch_fields(self, table: pd.DataFrame) -> list[tuple[str, str, int]]:
        """(card, field, today's value) of every integer field a balance patch may edit: the market cards (or,
        in a game without a market, every card) and each field its card module declares."""
        names = self.market_cards(table) or [str(n) for n in table["name"]]
        out = []
        for col in self.card_fields(table):
            values = dict(zip(table["name"].astype(str), table[col].astype(int), strict=True))
            out += [(n, col, int(values[n])) for n in names]
        return out

    # -- helpers shared by all games -----------------------------------------
    def policy(self, name: str) -> Policy:
        for p in self.policies:
            if p.name == name:
                return p
        raise BadInput("policy", f"unknown policy {name!r} (known: {', '.join(self.policy_names())})")

    def resolve_rules(self, n_players: int, seats: Sequence[Seat], rules: Mapping[str, Any] | None) -> dict:
        """Check the player and seat counts and resolve the rule options (errors keyed ``rules.<name>``)."""
        self.check_players(n_players)
        if len(seats) != n_players:
            raise BadInput("seats", f"got {len(seats)} seats for {n_players} players")
        try:
            return resolve_options(self.options, rules)
        except BadInput as e:
            raise e.under("rules") from None

    def result_arrays(self, score: np.ndarray, win: np.ndarray, game_out: np.ndarray,
                      seat_out: np.ndarray) -> dict[str, np.ndarray]:
        """The standard result dict from the kernels' common layout.

        ``game_out`` columns are rounds, first_player, end, then ``game_counters``;
        ``seat_out[:, :, k]`` is ``seat_counters[k]``.  ``counters`` is the same block as one
        (games, seats, counters) array, so a sweep sums every counter in one pass.
        """
        out = {"score": score, "win": win, "rounds": game_out[:, 0], "first_player": game_out[:, 1],
               "end": game_out[:, 2], "counters": seat_out[:, :, : len(self.seat_counters)]}
        for k, name in enumerate(self.seat_counters):
            out[name] = seat_out[:, :, k]
        for k, name in enumerate(self.game_counters):
            out[name] = game_out[:, 3 + k]
        return out

    # -- rule-list and custom policies ---------------------------------------
    # What a rule can do and what its conditions can read; a game with a ``rules`` policy sets both.
    rule_actions: tuple[Action, ...] = ()
    rule_features: tuple[str, ...] = ()

    def seat_rules(self, seats: Sequence[Seat], actions: Sequence[Action] | None = None,
                   features: Sequence[str] | None = None, cards: Any = None) -> RuleArrays:
        """Every seat's compiled rules and ``$params`` (BadInput keyed ``seats[i].params.rules[j]...``), and
        a ``learned`` seat's packed model (checked against the table's decision view for ``cards``).

        ``actions`` and ``features`` default to the game's own; a game whose targets or features depend on
        the cell (its card names) passes that cell's.
        """
        actions = self.rule_actions if actions is None else actions
        features = self.rule_features if features is None else features
        per_seat: list[list | None] = []
        values: list[Any] = []
        for i, seat in enumerate(seats):
            pol = self.policy(seat.policy)
            if pol.name == "learned":
                values.append(self.learned_params(seat, len(seats), cards, f"seats[{i}].params"))
                per_seat.append(None)
                continue
            values.append(rule_params(seat.params, [o.name for o in pol.params]) if pol.open else None)
            if pol.open and any(o.kind == "rules" for o in pol.params):
                per_seat.append(compile_rules(seat.params.get("rules"), actions, features, values[-1],
                                              f"seats[{i}].params.rules"))
            else:
                per_seat.append(None)
        return pack_seats(per_seat, values)

    @staticmethod
    def learned_rollouts(seat: Seat) -> bool:
        """Whether ``seat`` is an mcts seat whose rollouts play ``learned``."""
        return seat.policy == "mcts" and seat.params.get("playout") == "learned"

    @staticmethod
    def search_user_seats(seats: Sequence[Seat]) -> list[Seat]:
        """The seats as the rule arrays and scorers see them: an mcts seat whose rollouts play ``learned``
        carries that model in its scorer slot (its own decisions are the search's, so the slot is free; the
        game's mcts gives every seat inside its search that seat's scorer and model).  A model named without
        ``playout = "learned"`` would play nowhere, so it is refused rather than ignored."""
        for i, s in enumerate(seats):
            if s.policy == "mcts" and s.params.get("model") and not Game.learned_rollouts(s):
                raise BadInput(f"seats[{i}].params.model", "a model is read only by the rollouts of "
                               "mcts(playout=\"learned\"); allowed: add playout=\"learned\" or drop model")
        return [Seat("learned", {"model": s.params.get("model", "")}) if Game.learned_rollouts(s) else s
                for s in seats]

    def seat_scorers(self, seats: Sequence[Seat]) -> tuple:
        """The four scorers an engine call takes (``custom.no_scorer`` for seats without one), checked; a
        ``learned`` seat's is ``boardsim.learned.score``."""
        specs = []
        for i, seat in enumerate(seats):
            pol = self.policy(seat.policy)
            if pol.name == "learned":
                specs.append(learned.score)
            elif pol.open and any(o.kind == "function" for o in pol.params):
                fn = seat.params.get("function")
                if not fn:
                    raise BadInput(f"seats[{i}].params.function", f"missing; allowed: {FUNCTION.allowed()}")
                specs.append(fn)
            else:
                specs.append(None)
        return custom.scorers(specs)

    # -- the learned policy -----------------------------------------------------
    def learned_view(self, cards: Any = None) -> LearnedView:
        """The decision view a ``learned`` model of this game reads, for a table with ``cards``."""
        raise BadInput("policy", f"{self.title} has no learned policy")

    def learned_params(self, seat: Seat, n_players: int, cards: Any = None, key: str = "params") -> np.ndarray:
        """A ``learned`` seat's packed model (its scorer parameters): ``model`` read (the bundled one when
        empty) and checked against this game, ``n_players`` and the view of ``cards`` (BadInput ``key.model``);
        ``temperature`` checked."""
        try:
            values = resolve_options(self.policy("learned").params, seat.params)
        except BadInput as e:
            raise e.under(key) from None
        view = self.learned_view(cards)
        model = learned.resolve(values["model"], self.name, n_players, view.features, view.columns,
                                f"{key}.model")
        return learned.pack(model, float(values["temperature"]))

    def policy_names(self) -> list[str]:
        return [p.name for p in self.policies]

    def check_players(self, n_players: int) -> None:
        if isinstance(n_players, bool) or not isinstance(n_players, int) or not (
            self.min_players <= n_players <= self.max_players
        ):
            raise BadInput(
                "players",
                f"got {n_players!r}; {self.title} allows {self.player_range()}",
            )

    def player_range(self) -> str:
        """``2 to 4 players``, or ``exactly 2 players`` when the game has one player count."""
        if self.min_players == self.max_players:
            return f"exactly {self.min_players} player" + ("s" if self.min_players != 1 else "")
        return f"{self.min_players} to {self.max_players} players"

    def policy_matrix(self, seats: Sequence[Seat], width: int) -> np.ndarray:
        """Encode seats as a float64 matrix: column 0 the policy code, then params.

        Parameters fill columns 1.. in the order the policy declares them;
        list-valued parameters are left to the game (encode them separately).
        """
        out = np.zeros((len(seats), width), dtype=np.float64)
        for i, seat in enumerate(seats):
            try:
                pol = self.policy(seat.policy)
            except BadInput as e:
                raise e.under(f"seats[{i}]") from None
            try:
                values = resolve_options(pol.options_for(seat.params), seat.params)
            except BadInput as e:  # keyed by the parameter's full path, as the scenario spells it
                raise e.under(f"seats[{i}].params") from None
            out[i, 0] = pol.code
            col = 1
            for opt in pol.params:  # an open policy's extra numbers travel in its rule arrays instead
                if opt.kind not in ("list", "names", "rules", "function", "name", "model"):
                    out[i, col] = opt.encode(values[opt.name])
                    col += 1
        return out
