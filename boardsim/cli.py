"""Command line: argument parsing and error reporting only; the work is in the API."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from boardsim.errors import BadInput, BadParameter, ClusterLost


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad flag as one line and exits 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see --help)\n")


def _int_at_least(low: int, what: str, high: int | None = None):
    """An argparse type: an integer in [low, high], with the allowed range in the error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"got {text!r}; allowed: {what}")
        return value

    return parse


# every count and index fits int64 (chunk files, NumPy); games and seeds have the API's own bounds
_INT64 = 2**63 - 1
_positive = _int_at_least(1, "a positive integer", _INT64)
_nonneg = _int_at_least(0, "an integer >= 0", _INT64)
_games = _int_at_least(1, "a positive integer <= 1000000000000", 10**12)
_seed = _int_at_least(0, f"an integer in [0, {_INT64}]", _INT64)
_SEATINGS = ["all", "cyclic", "fixed"]


def _player_counts(text: str) -> list[int]:
    """``2`` or ``2,3,4``: one or more player counts."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts or any(c < 1 for c in counts):
        raise argparse.ArgumentTypeError(f"got {text!r}; allowed: a player count or a list like 2,3,4")
    return list(dict.fromkeys(counts))


def _rule(text: str) -> tuple[str, Any]:
    """``name=value`` with the value read as TOML (numbers, strings, lists, booleans)."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"got {text!r}; allowed: name=value")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw  # a bare word such as last_winner
    return name.strip(), value


def parse_policies(text: str) -> list[Any]:
    """``--policies`` as seats (``boardsim.seat.parse_seats``), errors keyed ``--policies``."""
    from boardsim.seat import parse_seats

    try:
        return parse_seats(text)
    except BadInput as e:
        raise BadInput("--policies", e.message) from None


def _policy_list(text: str, flag: str) -> list[Any]:
    """A flag's policies in the ``--policies`` syntax, a syntax error keyed by that flag; the seats
    themselves are checked by the API (``analysis.players.base_players``)."""
    try:
        return parse_policies(text)
    except BadInput as e:
        raise BadInput(flag, e.message) from None


def _executor_options(parser: argparse.ArgumentParser) -> None:
    """--executor, --workers and the Dask flags (read back by ``_executor_flags``)."""
    parser.add_argument("--executor", help="where chunks run: local (default), processes or dask")
    parser.add_argument("--workers", type=_positive, help="worker processes for --executor processes (default: cores)")
    parser.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address, e.g. tcp://host:8786")
    parser.add_argument("--scheduler-file", metavar="FILE", help="Dask scheduler file")
    parser.add_argument("--dask-local", type=_positive, metavar="N", help="start a local Dask cluster of N workers")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="boardsim", description="Monte Carlo strategy and balance analysis for card games.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("sweep", help="run every cell of a scenario and write a report")
    s.add_argument("scenario", help="scenario TOML file")
    s.add_argument("--games", type=_games, help="games per cell (overrides the scenario)")
    s.add_argument("--seed", type=_seed, help="base seed (overrides the scenario)")
    s.add_argument("--out", help="output folder (default reports/<scenario name>/)")
    s.add_argument("--threads", type=_positive, help="Numba threads (default: all cores)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    _executor_options(s)
    s.add_argument("--fresh", action="store_true", help="ignore chunks saved by an earlier run; play everything")
    s.add_argument("--force", action="store_true",
                   help="write into a folder that holds another scenario's results, removing them first")

    pl = sub.add_parser("play", help="print a readable trace of one game")
    pl.add_argument("game")
    pl.add_argument("--seed", type=_seed, default=0, help="base seed")
    pl.add_argument("--players", type=_positive, help="number of players")
    pl.add_argument("--policies", help="comma-separated policies, one per seat (cycled); parameters as in the "
                    "report labels: multiple(multiple=1.3),par")
    pl.add_argument("--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE",
                    help="a rule option, repeatable")
    pl.add_argument("--cell", type=_nonneg, default=0, help="grid cell of the game to replay")
    pl.add_argument("--index", type=_nonneg, default=0, help="game index within the cell")

    rp = sub.add_parser("replay", help="write a step-through HTML replay of one deal")
    rp.add_argument("game", help="a game, or the folder of a sweep (with --cell) to replay one of its deals")
    rp.add_argument("--policies", help="comma-separated policies, one per seat (cycled), as for play")
    rp.add_argument("--players", type=_positive, help="number of players")
    rp.add_argument("--seed", type=_seed, help="base seed (default 0; a sweep folder's is its own)")
    rp.add_argument("--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE",
                    help="a rule option, repeatable")
    rp.add_argument("--deal", type=_nonneg, help="the deal (game index) to replay")
    rp.add_argument("--pick", help="choose the deal by what happened in it: " + ", ".join(
        ["upset", "comeback", "typical", "longest", "first-player-loses"]) + " (default typical)")
    rp.add_argument("--games", type=_int_at_least(1, "an integer in [1, 100000]", 100_000),
                    help="deals a --pick looks at (default 200, 20 with a search seat)")
    rp.add_argument("--cell", type=_positive, help="with a sweep folder: the cell (1-based, as the report)")
    rp.add_argument("--seating", type=_nonneg, default=0, help="with a sweep folder: the seat arrangement")
    rp.add_argument("--won-by", type=_nonneg, help="with --pick: only among the deals this seat wins")
    rp.add_argument("--out", help="the HTML file (default reports/replay-<game>-<pick or deal>.html, or "
                    "<folder>/replay-cell<N>-<pick or deal>.html)")

    t = sub.add_parser("tournament", help="round robin or one-vs-field tournament with ratings")
    t.add_argument("game")
    t.add_argument("--policies", required=True, help="comma-separated policies, with parameters as in the "
                   "report labels: \"multiple(multiple=1.3)\",par,eligibility")
    t.add_argument("--games", type=_games, default=10_000, help="games per match (default 10000)")
    t.add_argument("--players", type=_positive, help="seats per game (default 2, or the game's minimum)")
    t.add_argument("--mode", choices=["round_robin", "field"], default="round_robin")
    t.add_argument("--field", help="the field policy for --mode field")
    t.add_argument("--seed", type=_seed, default=0)
    t.add_argument("--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE")
    t.add_argument("--out", help="output folder (default reports/tournament-<game>/)")
    t.add_argument("--threads", type=_positive)
    t.add_argument("--seating", choices=_SEATINGS, default="all",
                   help="seat arrangements per deal in each match (default all)")
    t.add_argument("--quiet", action="store_true")
    _executor_options(t)
    t.add_argument("--fresh", action="store_true", help="ignore matches saved by an earlier run; play everything")
    t.add_argument("--force", action="store_true",
                   help="write into a folder that holds another run's results, removing its report first")

    lad = sub.add_parser("ladder", help="a skill ladder: random, the heuristics and mcts at each budget, "
                         "with skill depth, the share skill decides and each rung's first-player edge")
    lad.add_argument("game")
    lad.add_argument("--players", type=_positive, help="seats per game (default 2, or the game's minimum)")
    lad.add_argument("--budgets", default="10,100,1000", help="mcts iterations per rung, comma-separated "
                     "(default 10,100,1000)")
    lad.add_argument("--games", type=_games, default=200, help="games per match and per self-play (default 200)")
    lad.add_argument("--policies", help="the heuristic rungs instead of every built-in one (random and the mcts "
                     "budgets are always added)")
    lad.add_argument("--seed", type=_seed, default=0)
    lad.add_argument("--out", help="output folder (default reports/ladder-<game>/)")
    lad.add_argument("--threads", type=_positive)
    lad.add_argument("--quiet", action="store_true")
    _executor_options(lad)
    lad.add_argument("--fresh", action="store_true", help="ignore matches saved by an earlier run; play everything")
    lad.add_argument("--force", action="store_true",
                     help="write into a folder that holds another run's results, removing its report first")
    lad.add_argument("--replays", action="store_true",
                     help="also write replays of the top two rungs head to head (an upset and a typical game)")

    o = sub.add_parser("optimize", help="tune a seat's policy parameters with differential evolution")
    o.add_argument("scenario", help="scenario TOML with an [optimize] table")
    o.add_argument("--games", type=_games, help="games per evaluation (overrides [optimize].games)")
    o.add_argument("--maxiter", type=_positive, help="generations (overrides [optimize].maxiter)")
    o.add_argument("--objective", help="win_rate (the seat's, the default), a feel target the table is brought to "
                                       "(comeback_rate>=0.2) or a metagame target of the seats' policies "
                                       "(nash_support>=2) (overrides [optimize].objective)")
    o.add_argument("--out", help="output folder (default reports/<scenario name>-optimize/)")
    o.add_argument("--threads", type=_positive)
    _executor_options(o)
    o.add_argument("--force", action="store_true",
                   help="write into a folder that holds another run's results, removing its report first")

    c = sub.add_parser("cards", help="card strength: each card's swing (hiring it whenever possible minus never) "
                       "against the average market card's, on the same deals")
    c.add_argument("game")
    c.add_argument("--players", type=_player_counts, default=[2], help="player count(s), e.g. 2 or 2,3,4")
    c.add_argument("--games", type=_games, default=20_000, help="games per arm, two arms a card (default 20000)")
    c.add_argument("--seed", type=_seed, default=0)
    c.add_argument("--cards", help="comma-separated card names (default: every market card)")
    c.add_argument("--base", help="the baseline policy of every seat, as in --policies; several, comma-separated, "
                   "measure each card under each (a skill axis), e.g. fame_per_cost,\"mcts(iterations=200)\" "
                   "(default: the game's default)")
    c.add_argument("--sweep", metavar="FIELD", help="for each flagged card, sweep this integer card field "
                   "(e.g. fame) and suggest one value whose worst |strength| over the player counts and base "
                   "players is smallest")
    c.add_argument("--seating", choices=_SEATINGS, default="all", help="seat arrangements per deal (default all)")
    c.add_argument("--span", type=_positive, default=3, help="sweep from value-span to value+span (default 3)")
    c.add_argument("--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE")
    c.add_argument("--out", help="output folder (default reports/cards-<game>/)")
    c.add_argument("--threads", type=_positive)
    _executor_options(c)
    c.add_argument("--force", action="store_true",
                   help="write into a folder that holds another run's results, removing its report first")
    c.add_argument("--replays", action="store_true",
                   help="also write replays of a game the strongest and the weakest card's owner won")

    pa = sub.add_parser("patch", help="a balance patch: the fewest card edits that make every card fair at every "
                                      "player count, searched on common deals and verified on fresh ones")
    pa.add_argument("target", metavar="GAME_OR_SCENARIO", help="a game name or a scenario .toml (its card table, "
                                                               "players and seats are the starting point)")
    pa.add_argument("--players", type=_player_counts, help="player count(s), e.g. 2,3,4 (default: the scenario's, "
                                                           "or 2)")
    pa.add_argument("--base", help="the base player(s) the patch is judged under, as in --policies; several, "
                                   "comma-separated, for a skill axis (default: the game's default policy)")
    pa.add_argument("--judge", help="further base player(s) the patch is verified under on the fresh deals but not "
                                    "searched under, e.g. \"mcts(iterations=50)\" (a search player costs too much "
                                    "to score every candidate)")
    pa.add_argument("--fields", help="card fields the patch may edit, comma-separated (default: the game's, e.g. "
                                     "fame for FlipToons)")
    pa.add_argument("--max-edits", type=_int_at_least(0, "an integer from 0 to 100", 100), default=5,
                    help="edits at most (default 5; 0 measures today's table unchanged)")
    pa.add_argument("--span", type=_int_at_least(1, "an integer from 1 to 1000", 1000), default=3,
                    help="every edit stays within +-span of today's value (default 3)")
    pa.add_argument("--games", type=_int_at_least(40, "an integer from 40 to 1000000000", 10**9), default=4000,
                    help="games per test on the search deals, and as many on the fresh verification deals "
                         "(default 4000)")
    pa.add_argument("--objective",
                    help="what is made fair: cards, first_player, both, feel targets such as comeback_rate>=0.2, "
                         "or one of the three then + targets (default: cards where the game can favour a card, "
                         "else first_player)")
    pa.add_argument("--seed", type=_seed, default=0)
    pa.add_argument("--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE")
    pa.add_argument("--out", help="output folder (default reports/patch-<game>/ or reports/<scenario>-patch/)")
    pa.add_argument("--threads", type=_positive, help="Numba threads (default: all cores)")
    _executor_options(pa)
    pa.add_argument("--fresh", action="store_true", help="ignore measurements saved by an earlier run")
    pa.add_argument("--quiet", action="store_true", help="print only the answer")
    pa.add_argument("--force", action="store_true",
                    help="write into a folder that holds another run's results, removing its report first")
    pa.add_argument("--replays", action="store_true",
                    help="also write a typical game of the patched table and the same deal on today's")

    le = sub.add_parser("learn", help="fit a learned player to a search player's choices (expert iteration) and "
                                      "report what it values")
    le.add_argument("game")
    le.add_argument("--players", type=_positive, help="player count (default: the game's default)")
    le.add_argument("--teacher", default="mcts", help="the policy whose choices are learned, as in --policies "
                                                      "(default mcts, at its default 1000 iterations)")
    le.add_argument("--rounds", type=_positive, default=2, help="rounds of recording and fitting (default 2)")
    le.add_argument("--games", type=_positive, default=200, help="teacher self-play games per round (default 200)")
    le.add_argument("--eval-games", type=_int_at_least(2, "an integer >= 2", _INT64), default=2000,
                    help="held-out deals of each round's strength check, each in every seating (default 2000)")
    le.add_argument("--seed", type=_seed, default=0)
    le.add_argument("--out", help="output folder (default reports/learn-<game>-<players>p/)")
    _executor_options(le)
    le.add_argument("--threads", type=_positive, help="Numba threads of the strength checks (default: all cores)")
    le.add_argument("--fresh", action="store_true", help="ignore games recorded by an earlier run")
    le.add_argument("--quiet", action="store_true", help="no progress bar")

    me = sub.add_parser("meta", help="where a round robin's metagame settles: Nash, alpha-Rank and replicator "
                                     "shares with intervals over deals (a tournament or ladder folder)")
    me.add_argument("folder", help="a folder written by tournament (round_robin) or ladder")
    me.add_argument("--draws", type=_int_at_least(10, "a whole number from 10 to 100000", 100_000), default=200,
                    help="bootstrap resamples of the deals (default 200)")
    me.add_argument("--seed", type=_seed, default=None,
                    help="seed of the resamples (default: the tournament's)")

    fe = sub.add_parser("feel", help="how a game feels at each skill level: length, lead changes, the leader-wins "
                                     "curve, comebacks, drama and security, with deal-level intervals")
    fe.add_argument("target", metavar="GAME_OR_SCENARIO", help="a game name or a scenario .toml (its game, rules, "
                                                              "cards, seed and [feel] table)")
    fe.add_argument("--players", type=_player_counts, help="player counts, comma-separated (default: every count "
                                                          "from 2 the game allows)")
    fe.add_argument("--levels", help="the policies, each played in every seat, comma-separated as --policies "
                                     "(default: the default heuristic, learned where bundled, mcts(iterations=100))")
    fe.add_argument("--deals", type=_games, help="deals per fast level (default 20000)")
    fe.add_argument("--search-deals", type=_games, help="deals per search level (default 200)")
    fe.add_argument("--comeback", type=float, help="comeback margin, a share of the winner's score (default 0.1)")
    fe.add_argument("--blowout", type=float, help="blowout margin, a share of the winner's score (default 0.25)")
    fe.add_argument("--seed", type=_seed, help="base seed (default: the scenario's, else 0)")
    fe.add_argument("--out", help="output folder (default reports/feel-<game or scenario>/)")
    fe.add_argument("--threads", type=_positive, help="Numba threads (default: all cores)")
    fe.add_argument("--quiet", action="store_true", help="no progress bar")
    fe.add_argument("--force", action="store_true", help="write into a folder that holds another run's results")
    _executor_options(fe)

    r = sub.add_parser("report", help="redraw the charts and index.html of a results folder")
    r.add_argument("folder")

    ls = sub.add_parser("list", help="list games, policies, rule options and card sets")
    ls.add_argument("game", nargs="?", help="only this game")
    for name, parser in sub.choices.items():
        _FLAGS[name] = {flag for action in parser._actions for flag in action.option_strings}
    return p


_FLAGS: dict[str, set[str]] = {}  # each command's flags (build_parser fills it), for as_flag
# API parameters whose flag is not --<name with dashes>
_FLAG_OF = {"n_games": "--games", "rules": "--rule", "local_workers": "--dask-local"}


def as_flag(error: BadInput, args: argparse.Namespace) -> BadInput:
    """``error`` as the command line says it: a Python API parameter (``workers``, ``scheduler_file``,
    ``base.iterations``) becomes the flag that set it (``--workers``, ``--scheduler-file``,
    ``--base.iterations``).  The one place where parameter names turn into flags; an error about a scenario
    key, a card or a flag already is left as it is."""
    if not isinstance(error, BadParameter):
        return error
    cut = min((i for i in (error.key.find("."), error.key.find("[")) if i >= 0), default=len(error.key))
    head, rest = error.key[:cut], error.key[cut:]
    flag = _FLAG_OF.get(head, "--" + head.replace("_", "-"))
    if head == "workers" and getattr(args, "dask_local", None) is not None:
        flag = "--dask-local"  # --dask-local N reaches the API as workers=N
    if flag not in _FLAGS.get(getattr(args, "command", ""), ()):
        return error  # a parameter the command does not expose as a flag (e.g. worker_timeout)
    return BadInput(flag + rest, error.message, error.file)


def _executor_flags(args) -> tuple[str | None, int | None]:
    """(executor, workers) from --executor, --workers, --dask-local and the scheduler flags, checked."""
    from boardsim.executors import check_scheduler_file

    check_scheduler_file(args.scheduler_file)  # before a sweep or patch reads anything else
    executor, workers = args.executor, args.workers
    if args.dask_local is not None:
        if executor not in (None, "dask") or args.scheduler or args.scheduler_file or workers:
            raise BadInput("--dask-local", "goes alone with --executor dask (no --scheduler or --workers)")
        executor, workers = "dask", args.dask_local
    elif executor == "dask" and not (args.scheduler or args.scheduler_file):
        raise BadInput("--executor", "dask needs --scheduler tcp://host:port, --scheduler-file FILE or --dask-local N")
    return executor, workers  # an unknown executor or --workers without one is make_executor's to refuse


def cmd_sweep(args) -> int:
    from boardsim.sweeps import sweep

    executor, workers = _executor_flags(args)
    try:
        result = sweep(args.scenario, out=args.out, games=args.games, seed=args.seed, threads=args.threads,
                       progress=False if args.quiet else None, executor=executor, workers=workers,
                       scheduler=args.scheduler, scheduler_file=args.scheduler_file, fresh=args.fresh,
                       force=args.force)
    except KeyboardInterrupt as e:
        r = e.args[0] if e.args else None
        if r is not None:
            print(f"interrupted: kept {r.cells_done} of {r.cells_total} finished cells in {r.out_dir}/ and every "
                  f"finished chunk in {r.out_dir}/chunks/; rerun the same command to resume", file=sys.stderr)
        else:
            print("interrupted", file=sys.stderr)
        return 130
    print(timing_line(result))
    if result.chunks_reused:
        print(f"resumed: reused {result.chunks_reused} saved chunks, played {result.chunks_played}")
    print(f"wrote {', '.join(result.files)} to {result.out_dir}/")
    return 0


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def timing_line(result) -> str:
    """The sweep's closing line: games, then the time split into compile, play and report, with games/s
    for play alone (a resumed run counts only the games it played)."""
    speed = f"{result.games_played / result.play_seconds:,.0f} games/s" if result.play_seconds > 0 else "-"
    loaded = result.games - result.games_played
    reused = f", {loaded:,} loaded from saved chunks" if loaded else ""
    return (f"{result.scenario.name}: {plural(result.cells_done, 'cell')}, {plural(result.games, 'game')}"
            f"{reused} in {result.seconds:.1f} s: compile {result.compile_seconds:.1f} s, play "
            f"{result.play_seconds:.1f} s ({plural(result.games_played, 'game')} played, {speed}), report "
            f"{result.report_seconds:.1f} s")


def cmd_play(args) -> int:
    from boardsim.runner import trace_game

    print(trace_game(args.game, seed=args.seed, policies=parse_policies(args.policies) if args.policies else None,
                     players=args.players, rules=dict(args.rule), cell=args.cell, index=args.index))
    return 0


def cmd_replay(args) -> int:
    from boardsim.games import names
    from boardsim.replays import replay, replay_folder

    folder = args.game.replace("-", "_").lower() not in names() and Path(args.game).is_dir()
    if folder:
        if args.cell is None:
            raise BadInput("--cell", f"{args.game} is a sweep folder: name the cell to replay; allowed: --cell N")
        for flag, value in (("--policies", args.policies), ("--players", args.players), ("--rule", args.rule),
                            ("--seed", args.seed)):
            if value is not None and value != []:
                raise BadInput(flag, "the sweep folder's scenario sets the table; allowed: --cell, --seating, "
                                     "--deal, --pick, --games, --out")
        if args.won_by is not None:
            raise BadInput("--won-by", "goes with a game, not a sweep folder; allowed: --cell, --seating, --deal, "
                                       "--pick, --games, --out")
        r = replay_folder(args.game, args.cell, deal=args.deal, pick=args.pick, games=args.games,
                          seating=args.seating, out=args.out)
    else:
        for flag, value in (("--cell", args.cell), ("--seating", args.seating)):
            if value:
                raise BadInput(flag, "goes with a sweep folder; allowed with a game: --policies, --players, "
                                     "--seed, --rule, --deal, --pick, --games, --out")
        r = replay(args.game, policies=parse_policies(args.policies) if args.policies else None,
                   players=args.players, seed=0 if args.seed is None else args.seed, deal=args.deal, pick=args.pick,
                   games=args.games, rules=dict(args.rule), out=args.out, won_by=args.won_by)
    print(f"replay of deal {r.deal} ({r.reason}): {r.steps} decisions, final scores "
          f"{', '.join(str(x) for x in r.score)} -> {r.path} ({r.seconds:.1f} s)")
    return 0


def cmd_tournament(args) -> int:
    from boardsim.analysis.jobs import tournament_job

    executor, workers = _executor_flags(args)
    try:
        job = tournament_job(args.game, parse_policies(args.policies), players=args.players, games=args.games,
                             seed=args.seed, mode=args.mode, rules=dict(args.rule),
                             field=_policy_list(args.field, "--field")[0] if args.field else None,
                             seating=args.seating, threads=args.threads, out=args.out,
                             progress=False if args.quiet else None, force=args.force, fresh=args.fresh,
                             executor=executor, workers=workers, scheduler=args.scheduler,
                             scheduler_file=args.scheduler_file)
    except KeyboardInterrupt:
        return _interrupted(args.out or f"reports/tournament-{args.game}")
    print(job.result.ratings.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"wrote {', '.join(job.files)} to {job.out_dir}/")
    return 0


def _interrupted(out: str) -> int:
    print(f"interrupted: every finished match is kept in {Path(out) / 'chunks' / 'matches'}/; rerun the same "
          "command to resume", file=sys.stderr)
    return 130


def _budgets(text: str) -> tuple[int, ...]:
    try:
        out = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        out = ()
    if not out or min(out) < 1:
        raise BadInput("--budgets", f"got {text!r}; allowed: whole numbers >= 1, comma-separated (10,100,1000)")
    return out


def cmd_ladder(args) -> int:
    from boardsim.analysis.jobs import ladder_job

    policies = _policy_list(args.policies, "--policies") if args.policies else None
    executor, workers = _executor_flags(args)
    try:
        job = ladder_job(args.game, players=args.players, budgets=_budgets(args.budgets), games=args.games,
                         policies=policies, seed=args.seed, threads=args.threads, out=args.out,
                         progress=False if args.quiet else None, force=args.force, fresh=args.fresh,
                         executor=executor, workers=workers, scheduler=args.scheduler,
                         scheduler_file=args.scheduler_file, replays=args.replays)
    except KeyboardInterrupt:
        return _interrupted(args.out or f"reports/ladder-{args.game}")
    result = job.result
    s = result.skill.iloc[0]
    print(result.ladder[["rung", "policy", "elo", "below", "vs_below", "vs_below_lo", "vs_below_hi"]].to_string(
        index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"skill decides about {s['skill_share']:.0%} of outcomes ({s['strongest']} against random); "
          f"{int(s['skill_depth'])} distinguishable levels; Elo span {s['elo_span']:.0f}")
    print(f"wrote {', '.join(job.files)} to {job.out_dir}/")
    return 0


def cmd_optimize(args) -> int:
    from boardsim.analysis.jobs import optimize_job

    executor, workers = _executor_flags(args)
    job = optimize_job(args.scenario, games=args.games, objective=args.objective, maxiter=args.maxiter,
                       threads=args.threads, out=args.out, force=args.force, executor=executor, workers=workers,
                       scheduler=args.scheduler, scheduler_file=args.scheduler_file)
    result = job.result
    imp = result.improvement
    print(f"best {result.policy} parameters for seat {result.seat}: {result.rounded} "
          f"(rounded to steps {result.steps}, the precision the check supports; {result.evaluations} evaluations)")
    deals = int(result.check["deals"].iloc[0])
    if imp["effect_lo"] == imp["effect_lo"]:
        print(f"best - start on {deals:,} fresh deals, paired: {imp['effect']:+.4f} "
              f"[{imp['effect_lo']:+.4f}, {imp['effect_hi']:+.4f}]")
    else:  # a metagame figure: each side's own bootstrap interval is in the table
        print(f"best - start on {deals:,} fresh deals a pair: {imp['effect']:+.4f} (each figure's interval below)")
    print(result.check.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    print(f"wrote {', '.join(job.files)} to {job.out_dir}/")
    return 0


def cmd_cards(args) -> int:
    from boardsim.analysis.jobs import cards_job

    executor, workers = _executor_flags(args)
    job = cards_job(args.game, players=args.players, games=args.games, seed=args.seed,
                    cards=[c.strip() for c in args.cards.split(",")] if args.cards else None,
                    base=_policy_list(args.base, "--base") if args.base else None, sweep=args.sweep,
                    span=args.span, rules=dict(args.rule), seating=args.seating, threads=args.threads,
                    out=args.out, progress=True, force=args.force, executor=executor, workers=workers,
                    scheduler=args.scheduler, scheduler_file=args.scheduler_file, replays=args.replays)
    strength, changes = job.extra["strength"], job.extra["changes"]
    print("strength: the card's swing (win share hiring it whenever possible minus never hiring it) minus the "
          "average market card's (0 = average); regret: win share favouring it minus the base player's")
    print(strength[["base", "players", "rank", "card", "effect", "effect_lo", "effect_hi", "p_holm", "flag",
                    "regret"]].rename(columns={"effect": "strength", "effect_lo": "lo", "effect_hi": "hi"})
          .to_string(index=False, float_format=lambda x: f"{x:+.4f}"))
    if len(job.extra["bases"]) > 1:
        print("side by side (card_skill.csv):")
        print(job.extra["skill"].to_string(index=False, float_format=lambda x: f"{x:+.4f}"))
        print(f"{len(changes)} verdicts change with skill" + (": " + ", ".join(
            f"{r.card} at {r.players} players ({r.change})" for r in changes.itertuples()) if len(changes) else ""))
    from boardsim.report.answer import suggestions_answer

    for line in suggestions_answer(job.extra["suggestions"]):
        print(line)
    print(f"wrote {', '.join(job.files)} to {job.out_dir}/")
    return 0


def cmd_patch(args) -> int:
    from boardsim.analysis.patch_job import default_out, patch, patch_target
    from boardsim.seat import split_top

    executor, workers = _executor_flags(args)
    game, _ = patch_target(args.target)
    bases = _policy_list(args.base, "--base") if args.base is not None else None
    judges = _policy_list(args.judge, "--judge") if args.judge is not None else None
    fields = split_top(args.fields) if args.fields is not None else None
    if fields is not None and not fields:
        raise BadInput("--fields", "no field given; allowed: a comma-separated list such as fame,dismiss_cost")
    say = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))
    try:
        run = patch(args.target, players=args.players, base=bases, fields=fields, max_edits=args.max_edits,
                    span=args.span, games=args.games, objective=args.objective, seed=args.seed, out=args.out,
                    rules=dict(args.rule) or None, executor=executor, workers=workers, scheduler=args.scheduler,
                    scheduler_file=args.scheduler_file, threads=args.threads, fresh=args.fresh, say=say,
                    judge=judges, progress=not args.quiet, force=args.force, replays=args.replays)
    except KeyboardInterrupt:
        where = Path(args.out) if args.out else default_out(args.target, game)
        print(f"interrupted: every finished measurement is kept in {where / 'chunks' / 'patch'}/; rerun the same "
              "command to resume", file=sys.stderr)
        return 130
    from boardsim.report.patch import patch_answer

    for line in patch_answer(run.result.objective, run.result.limits, run.result.verification):
        print(line)
    print(f"{run.result.games_played:,} games played ({run.result.chunks_loaded} measurements loaded) in "
          f"{run.seconds:.0f} s; wrote {', '.join(run.files)} to {run.out_dir}/")
    return 0


def cmd_learn(args) -> int:
    from boardsim.analysis.learn import learn

    say = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))
    executor, workers = _executor_flags(args)
    try:
        result = learn(args.game, players=args.players, teacher=args.teacher, rounds=args.rounds, games=args.games,
                       seed=args.seed, out=args.out, eval_games=args.eval_games, executor=executor,
                       workers=workers, threads=args.threads, progress=False if args.quiet else None,
                       fresh=args.fresh, log=say, scheduler=args.scheduler, scheduler_file=args.scheduler_file)
    except KeyboardInterrupt:
        print("interrupted: every recorded chunk is kept; rerun the same command to resume", file=sys.stderr)
        return 130
    print((result.out_dir / "learn.md").read_text().split("## Rounds")[0].rstrip())
    print(f"wrote {', '.join(result.files)} to {result.out_dir}/")
    return 0


def cmd_meta(args) -> int:
    from boardsim.analysis.jobs import meta_job

    job = meta_job(args.folder, draws=args.draws, seed=args.seed)
    cols = ["policy", "nash", "nash_lo", "nash_hi", "alpha_rank", "replicator"]
    print(job.result[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    split = job.extra["split"].iloc[0]
    print(f"transitive share {split['transitive']:.1%} [{split['transitive_lo']:.1%}, {split['transitive_hi']:.1%}], "
          f"cyclic {split['cyclic']:.1%}; alpha-Rank alpha = {job.result['alpha'].iloc[0]:g}")
    print(f"wrote {', '.join(job.files)} to {job.out_dir}/")
    return 0


def cmd_feel(args) -> int:
    from boardsim.analysis.feel import feel_job

    executor, workers = _executor_flags(args)
    levels = _policy_list(args.levels, "--levels") if args.levels else None
    job = feel_job(args.target, players=args.players, levels=levels, deals=args.deals, search_deals=args.search_deals,
                   seed=args.seed, comeback=args.comeback, blowout=args.blowout, threads=args.threads, out=args.out,
                   progress=False if args.quiet else None, force=args.force, executor=executor, workers=workers,
                   scheduler=args.scheduler, scheduler_file=args.scheduler_file)
    for sentence in job.result.answer():
        print(sentence)
    print(f"wrote {', '.join(job.files)} to {job.out_dir}/")
    return 0


def cmd_report(args) -> int:
    from pathlib import Path

    from boardsim.report.build import build_report

    folder = Path(args.folder)
    if not folder.is_dir() or not any(folder.glob("*.csv")):
        raise BadInput("folder", "not a results folder (expected CSV files written by sweep or tournament)",
                       str(folder))
    files = build_report(folder)  # writes only once every table and run.json has been read and drawn
    print(f"wrote {', '.join(files)} to {folder}/")
    return 0


def cmd_list(args) -> int:
    from boardsim import games

    names = [args.game] if args.game else games.names()
    for name in names:
        g = games.get(name)
        print(f"{g.name}: {g.title}, {g.player_range()} (default {g.default_players})")
        print("  policies:")
        for pol in g.policies:
            mark = " (default)" if pol.name == g.default_policy else ""
            print(f"    {pol.name}{mark}: {pol.doc}")
            for opt in pol.params:
                print(f"      {opt.name} = {opt.default!r}: {opt.doc}; {opt.allowed()}")
        print("  rule options:")
        for opt in g.options:
            print(f"    {opt.name} = {opt.default!r}: {opt.doc}; {opt.allowed()}")
        table = g.card_table()
        print(f"  card sets: {', '.join(g.card_sets)} ({len(table)} card rows; columns "
              f"{', '.join(map(str, table.columns))})")
    return 0


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM is handled like Ctrl-C: a sweep keeps its finished cells and chunks and stops its workers.

    Only the first one interrupts; a repeat would cut short the clean-up that the first one started.
    """
    _TERMINATED.append(signum)
    if len(_TERMINATED) == 1:
        raise KeyboardInterrupt


_TERMINATED: list[int] = []


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = {"sweep": cmd_sweep, "play": cmd_play, "list": cmd_list, "tournament": cmd_tournament,
               "ladder": cmd_ladder,
               "report": cmd_report, "optimize": cmd_optimize, "cards": cmd_cards, "patch": cmd_patch,
               "learn": cmd_learn, "meta": cmd_meta, "feel": cmd_feel, "replay": cmd_replay}[args.command]
    _TERMINATED.clear()
    on_main = threading.current_thread() is threading.main_thread()  # only there can a handler be set
    previous = signal.signal(signal.SIGTERM, _terminated) if on_main else None
    try:
        status = handler(args)
    except BrokenPipeError:
        # the reader went away (``| head -1``): end quietly, without a traceback at interpreter exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except BadInput as e:
        print(f"error: {as_flag(e, args).line()}", file=sys.stderr)
        return 2
    except OverflowError as e:  # a sum that would leave int64 (runner.Aggregate), outside a sweep
        print(f"error: games: {e}; play fewer games or use smaller card values", file=sys.stderr)
        return 2
    except ClusterLost as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # a full or read-only disk while writing results
        where = e.filename or getattr(args, "out", None) or getattr(args, "folder", None)
        prefix = f"{where}: " if where else ""
        print(f"error: {prefix}--out: cannot write: {e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        status = 130
    finally:
        if on_main and previous is not None:
            signal.signal(signal.SIGTERM, previous)
    # an interrupted run exits 130 after Ctrl-C and 143 (128 + SIGTERM) after SIGTERM, as a shell reports them
    return 143 if status == 130 and _TERMINATED else status
