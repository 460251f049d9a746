"""``boardsim learn``: fit a ``learned`` player to a teacher's choices, round after round (expert iteration).

Each round:

1. **Records** ``games`` self-play games of the round's teacher (every seat plays it) with the game's recorder
   (``boardsim/games/<game>/record.py``): at each decision a scorer would be asked, the decision view and the
   teacher's distribution over its candidates (a search's visit shares).  The games are cut into chunks, each
   saved as it finishes, so a killed run resumes where it stopped and gives the same model.
2. **Fits** the model (boardsim.analysis.fit) to every round's decisions so far, with the penalty that predicts
   held-out games best.
3. **Checks** the new model on held-out deals against the best so far (the first round: against the game's
   default heuristic), every deal in every seating: a round whose model wins less than its fair share is not
   kept.
4. The next round's teacher is the search with the best model as its playout policy where the game's search
   can play one (``learned`` in its ``playout`` choices), otherwise the same teacher with more games.

The folder ``out`` receives ``model.npz`` (the best round's model), ``rounds.csv`` (per round: teacher, games,
decisions, agreement with the teacher on held-out games, held-out strength with its interval, kept, seconds),
``weights.csv`` (what the model values: each standardised weight with a bootstrap interval over games) and
``learn.md`` (the same, for people); ``work/`` holds the recorded chunks and each round's model.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boardsim import learned, rng
from boardsim.analysis import fit as FT
from boardsim.errors import BadInput, BadParameter
from boardsim.executors import open_executor
from boardsim.games import get as get_game
from boardsim.games.base import Game, LearnedView, Seat
from boardsim.seat import as_seat, parse_seats

DEFAULT_TEACHER = "mcts"
CHUNK_GAMES = 8  # games per saved chunk: a search game takes seconds, so a kill loses little
HELD_OUT = 1_000_003  # the held-out deals' seed offset (no training game shares a deal with them)


@dataclass
class LearnResult:
    """What ``learn`` made: the best model, the per-round report and the weight table."""

    model: learned.Model
    rounds: pd.DataFrame
    weights: pd.DataFrame
    out_dir: Path
    files: list[str] = field(default_factory=list)


def recorder(game: Game) -> Any:
    """The game's recorder module (``boardsim/games/<game>/record.py``)."""
    return game.recorder("learn")


def _record_chunk(game_name: str, players: int, teacher: Seat, key: int, start: int, count: int
                  ) -> dict[str, np.ndarray]:
    """One chunk of teacher self-play games, recorded (runs in a worker thread or process)."""
    game = get_game(game_name)
    prepared = game.prepare(players, [teacher] * players, None, game.card_table())
    return recorder(game).record(prepared, key, start, count)


def teacher_seat(game: Game, teacher: Any, players: int) -> Seat:
    """The teacher as a seat, checked by preparing a table of it (BadParameter ``teacher``)."""
    try:
        seat = parse_seats(teacher)[0] if isinstance(teacher, str) else as_seat(teacher)
        game.prepare(players, [seat] * players, None, game.card_table())
    except BadInput as e:
        raise BadParameter("teacher", f"{e.message if e.key in ('policy', 'policies') else e.line()}") from None
    if seat.policy == "learned":
        raise BadParameter("teacher", "a learned player cannot teach itself; allowed: a search or heuristic policy "
                                      f"of {game.title} ({', '.join(game.policy_names())})")
    return seat


def playout_teacher(game: Game, teacher: Seat, model_path: Path | None) -> Seat:
    """The next round's teacher: the search playing its rollouts with the best model, where it can."""
    if model_path is None or teacher.policy != "mcts":
        return teacher
    playout = next((o for o in game.policy("mcts").params if o.name == "playout"), None)
    if playout is None or "learned" not in playout.choices:
        return teacher
    return Seat("mcts", {**teacher.params, "playout": "learned", "model": str(model_path)})


def per_deal(values: Any, deals: Any) -> tuple[float, float, float]:
    """The mean of a per-game quantity and its 95% t interval with the deal as the unit: ``deals`` names each
    game's deal (a simulate frame's ``game`` column; its seatings share it)."""
    from boardsim.analysis.balance import paired_stats

    means = pd.Series(np.asarray(values, dtype=np.float64)).groupby(np.asarray(deals)).mean().to_numpy()
    return paired_stats(means)[:3]


def strength(game: Game, players: int, new: Seat, old: Seat, games: int, seed: int, threads: int | None = None
             ) -> tuple[float, float, float]:
    """``new``'s win share against ``players - 1`` seats of ``old`` on ``games`` held-out deals, each played in
    every seating: (share, low, high), a 95% t interval over deals (fair share 1/players)."""
    from boardsim.runner import simulate

    seats = [new] + [old] * (players - 1)
    df = simulate(game.name, games, seats, seed=seed, players=players, seating="all", threads=threads,
                  progress=False)
    # the frame's seats are in listed order: column 0 is ``new`` wherever it sat
    return per_deal(df["win_0"].to_numpy(), df["game"].to_numpy())


def _settings(game: Game, players: int, teacher: Seat, games: int, seed: int, eval_games: int) -> dict[str, Any]:
    return {"game": game.name, "players": players, "teacher": teacher.label(), "games": games, "seed": seed,
            "eval_games": eval_games, "format": learned.FORMAT}


def _tasks(ex: Any, fn: Callable[..., Any], args: Sequence[tuple], threads: int) -> Iterator[tuple[int, Any]]:
    """(i, fn(*args[i])) as each finishes: on the executor ``ex`` (processes, Dask), else here on ``threads``
    threads (the recorders spend their time in jitted nogil code, the search, so threads share the cores)."""
    if ex is not None:
        yield from ex.tasks(fn, args)
        return
    if threads <= 1:
        for i, a in enumerate(args):
            yield i, fn(*a)
        return
    with ThreadPoolExecutor(threads) as pool:
        futures = {pool.submit(fn, *a): i for i, a in enumerate(args)}
        for fut in as_completed(futures):
            yield futures[fut], fut.result()


def record_round(game: Game, players: int, teacher: Seat, key: int, games: int, work: Path,
                 ex: Any, threads: int, progress: bool, label: str, chunk: int = CHUNK_GAMES
                 ) -> list[dict[str, np.ndarray]]:
    """Every chunk of a round, recorded (on the executor ``ex``, or here on ``threads`` threads) or read back
    from ``work`` (a resumed run records only the missing chunks; each chunk's games depend only on ``key``
    and their indices, so the data are the same on any executor)."""
    work.mkdir(parents=True, exist_ok=True)
    starts = list(range(0, games, chunk))
    paths = [work / f"chunk-{s:07d}.npz" for s in starts]
    todo = [(s, p) for s, p in zip(starts, paths, strict=True) if not p.exists()]
    bar = _bar(progress, games, label, games - sum(min(chunk, games - s) for s, _ in todo))

    def save(s: int, p: Path, data: Mapping[str, np.ndarray]) -> None:
        tmp = p.with_name(p.name + ".part")
        with open(tmp, "wb") as fh:
            np.savez(fh, **data)
        os.replace(tmp, p)
        bar.update(min(chunk, games - s))

    try:
        args = [(game.name, players, teacher, key, s, min(chunk, games - s)) for s, _ in todo]
        for i, data in _tasks(ex, _record_chunk, args, threads):
            save(*todo[i], data)
    finally:
        bar.close()
    out = []
    for p in paths:
        with np.load(p) as z:
            out.append({k: z[k] for k in z.files})
    return out


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(progress: bool, total: int, label: str, done: int) -> Any:
    if not progress:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, initial=done, desc=label, unit="game", file=sys.stderr, leave=False)


def category_names(game: Game, view: LearnedView) -> list[str]:
    """Names of the model's categories (``hire Tiger``, ``bid``...), for the weight table."""
    if view.cat_col < 0:
        return []
    col = view.columns[view.cat_col]
    values = [f"{col}={k}" for k in range(view.cat_size)]
    if game.name == "art_deco":
        values = ["action=pass/decline/keep", "action=bid", "action=buy", "action=sell"]
    elif col == "card":
        table = game.card_table()
        names = [str(n) for n in (table["name"] if "name" in table else table["card"])]
        values = [f"card={n}" for n in names[: view.cat_size]] + values[len(names):]
    if view.cat2_col < 0:
        return values
    col2 = view.columns[view.cat2_col]
    kinds = ("hire", "dismiss", "pass") if col2 == "kind" else tuple(f"{col2}={k}" for k in range(view.cat2_size))
    return [f"{kinds[j]} {v.split('=', 1)[-1]}" for j in range(view.cat2_size) for v in values]


def learn(game: str | Game, players: int | None = None, teacher: Any = "mcts", rounds: int = 2,
          games: int = 200, seed: int = 0, out: str | os.PathLike | None = None, eval_games: int = 2000,
          executor: str | None = None, workers: int | None = None, threads: int | None = None,
          progress: bool | None = None, fresh: bool = False, bootstrap_draws: int = 30,
          scheduler: Any = None, scheduler_file: str | None = None,
          log: Callable[[str], Any] | None = print) -> LearnResult:
    """Fit a ``learned`` player of ``game`` at ``players`` to ``teacher``'s choices (module docstring).

    ``games`` teacher games per round, ``eval_games`` held-out deals per strength check; ``out`` (default
    ``reports/learn-<game>-<players>p/``) keeps the chunks, so a killed run given the same arguments resumes
    and ends with the same model; ``fresh`` starts over.  The teacher's games run on ``executor`` (the
    package's executors: ``processes`` or ``dask`` with ``workers``, ``scheduler`` or ``scheduler_file``, as
    for a sweep), or here on ``workers`` threads (default: the cores).  BadParameter (``players``,
    ``teacher``, ``rounds``, ``games``, ``seed``, ``out``, ``executor``, ``workers``) before anything is
    written.
    """
    g = get_game(game) if isinstance(game, str) else game
    players = g.default_players if players is None else players
    try:
        g.check_players(players)
    except BadInput as e:
        raise BadParameter("players", e.message) from None
    if players < 2:
        raise BadParameter("players", f"got {players}; allowed: 2 or more (the model learns from self-play)")
    for name, value, low in (("rounds", rounds, 1), ("games", games, 1), ("eval_games", eval_games, 2),
                             ("seed", seed, 0), ("bootstrap_draws", bootstrap_draws, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise BadParameter(name, f"got {value!r}; allowed: an integer >= {low}")
    seat = teacher_seat(g, teacher, players)
    recorder(g)
    view = g.learned_view()
    out_dir = Path(out) if out is not None else Path("reports") / f"learn-{g.name}-{players}p"
    if out_dir.exists() and not out_dir.is_dir():
        raise BadParameter("out", f"{str(out_dir)!r} is a file; allowed: a folder")
    settings = _settings(g, players, seat, games, seed, eval_games)
    work = out_dir / "work"
    saved = work / "settings.json"
    if fresh and work.exists():
        shutil.rmtree(work)
    if saved.exists():
        try:
            before = json.loads(saved.read_text())
        except (OSError, ValueError):
            before = None
        if before != settings:
            raise BadParameter("out", f"{str(out_dir)!r} holds a run with other settings ({before}); allowed: the "
                                      "same settings to resume, --fresh to start over, or another folder")
    local = executor in (None, "local") and scheduler is None and scheduler_file is None
    if local and workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise BadParameter("workers", f"got {workers!r}; allowed: an integer >= 1 (threads here)")
    threads_here = (workers or os.cpu_count() or 1) if local else 1
    progress = sys.stderr.isatty() if progress is None else progress
    say = log or (lambda _: None)
    work.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(settings))
    rows: list[dict[str, Any]] = []
    data_parts: list[dict[str, np.ndarray]] = []
    best: learned.Model | None = None
    best_path: Path | None = None
    current = seat
    # the package's executor (None here: threads); closed, or stopped after an error, when the rounds end
    with open_executor(None if local else executor, None if local else workers, scheduler, scheduler_file) as ex:
        for r in range(1, rounds + 1):
            t0 = time.perf_counter()
            key = rng.cell_key(seed, r)
            label = f"round {r}/{rounds}: {current.label()}"
            say(f"learn {g.name} {players}p {label}: {games} games")
            parts = record_round(g, players, current, key, games, work / f"round-{r}", ex, threads_here, progress,
                                 label)
            # each round's games are their own (key r): offset the game indices so games stay distinct units
            for p in parts:
                p["game"] = p["game"] + r * 10**9
            data_parts += parts
            data = FT.concat(data_parts)
            round_path = work / f"round-{r}.npz"
            base = FT.template(data, g.name, players, view,
                               {"teacher": current.label(), "round": r, "games": games * r, "seed": seed})
            if round_path.exists():
                model = learned.load(round_path)
            else:
                penalty = FT.choose_penalty(data, base, seed=seed)
                model = FT.fit(data, base, penalty)
                learned.save(model, round_path)
            # agreement with this round's teacher on its own games, from a fit that did not see them (a fifth)
            agree = _held_out_agreement(data_parts[-len(parts):], data, base, float(model.info.get("penalty", 1e-3)))
            old = Seat(g.default_policy) if best_path is None else Seat("learned", {"model": str(best_path)})
            share, lo, hi = strength(g, players, Seat("learned", {"model": str(round_path)}), old, eval_games,
                                     seed + HELD_OUT + r, threads)
            kept = best is None or share >= 1.0 / players
            if kept:
                best, best_path = model, round_path
            rows.append({"round": r, "teacher": current.label(), "games": games,
                         "decisions": int(sum(len(p["rows"]) for p in parts)), "agreement": agree,
                         "against": old.label(),
                         "share": share, "low": lo, "high": hi, "fair": 1.0 / players, "kept": kept,
                         "seconds": round(time.perf_counter() - t0, 1)})
            say(f"  agreement with the teacher {agree:.1%}; against {old.label()}: {share:.1%} "
                f"[{lo:.1%}, {hi:.1%}] (fair {1 / players:.1%}) -> {'kept' if kept else 'not kept'}")
            current = playout_teacher(g, seat, best_path)
    assert best is not None
    data = FT.concat(data_parts)
    draws = FT.bootstrap(data, best, bootstrap_draws, seed) if bootstrap_draws else None
    weights = FT.weight_table(best, draws, category_names(g, view))
    rounds_df = pd.DataFrame(rows)
    files = write_outputs(out_dir, best, rounds_df, weights, g, players)
    return LearnResult(best, rounds_df, weights, out_dir, files)


def _held_out_agreement(round_parts: list[dict[str, np.ndarray]], data: Mapping[str, np.ndarray],
                        base: learned.Model, penalty: float) -> float:
    """Agreement with the teacher on a fifth of this round's games, by a model fitted without them."""
    games = np.unique(np.concatenate([p["game"] for p in round_parts]))
    held = games[:: 5] if len(games) >= 5 else games[:1]
    test = np.isin(data["game"], held)
    if test.all():
        return FT.agreement(FT.fit(data, base, penalty), data)
    return FT.agreement(FT.fit(FT.subset(data, ~test), base, penalty), FT.subset(data, test))


def write_outputs(out_dir: Path, model: learned.Model, rounds: pd.DataFrame, weights: pd.DataFrame, game: Game,
                  players: int) -> list[str]:
    """model.npz, rounds.csv, weights.csv and learn.md in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    learned.save(model, out_dir / "model.npz")
    rounds.to_csv(out_dir / "rounds.csv", index=False)
    weights.to_csv(out_dir / "weights.csv", index=False)
    (out_dir / "learn.md").write_text(summary(model, rounds, weights, game, players))
    return ["model.npz", "rounds.csv", "weights.csv", "learn.md"]


def summary(model: learned.Model, rounds: pd.DataFrame, weights: pd.DataFrame, game: Game, players: int) -> str:
    """The training report for people: the answer (how strong, what it values) first."""
    kept = rounds[rounds["kept"]].iloc[-1]
    lines = [f"# A learned {game.title} player, {players} players", "",
             f"The kept model is round {int(kept['round'])}'s: it agrees with its teacher ({kept['teacher']}) on "
             f"{kept['agreement']:.1%} of held-out decisions and wins {kept['share']:.1%} "
             f"[{kept['low']:.1%}, {kept['high']:.1%}] against {kept['against']} (fair share {kept['fair']:.1%}), "
             "every held-out deal played in every seating.", "",
             "## What a strong player values", "",
             "Standardised weights (one standard deviation of the input), largest first, with 95% bootstrap "
             "intervals over games. A positive weight makes a candidate more likely to be chosen; `x` is the "
             "weight of a product (the column matters more as the feature grows). Correlational: the model "
             "imitates the teacher's choices, it does not measure their effect on winning.", "",
             "| term | weight | 95% interval |", "|---|---|---|"]
    for _, w in weights.head(20).iterrows():
        lines.append(f"| {w['term']} | {w['weight']:+.2f} | [{w['low']:+.2f}, {w['high']:+.2f}] |")
    lines += ["", "## Rounds", "", "| round | teacher | games | decisions | agreement | strength [95%] | against | "
              "kept | seconds |", "|---|---|---|---|---|---|---|---|---|"]
    for _, r in rounds.iterrows():
        lines.append(f"| {r['round']} | {r['teacher']} | {r['games']} | {r['decisions']} | {r['agreement']:.1%} | "
                     f"{r['share']:.1%} [{r['low']:.1%}, {r['high']:.1%}] | {r['against']} | "
                     f"{'yes' if r['kept'] else 'no'} | {r['seconds']} |")
    return "\n".join(lines) + "\n"
