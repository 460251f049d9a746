"""Watch a game: one deal as a step-through HTML page (``boardsim replay``; docs/guide/replay.md).

A replay is three readings of the same game, each by the jitted engine code the batch kernel plays with
(one implementation; the deal's seed is the sweep's, so the replayed game is the game the sweep played):

- ``Game.play`` with progress on: the final scores and win shares (the sweep's row for the deal) and each
  seat's progress after every round (the score-over-time chart);
- the game's decision recorder (``boardsim/games/<game>/record.py``, the one ``learn`` trains from): at every
  decision where a seat had a choice, the decision view that seat saw (its features and one candidate row
  per option), the option it took and, for a search seat, the root's visit share of each option; for a
  ``learned`` seat the page adds the model's probability of each option (its softmax at temperature 1);
- ``Game.trace``: the readable log of the whole table, every hand and grid shown (the omniscient view).

The page steps through the decisions.  By default it shows what the acting seat saw (its decision view and
its options); a toggle adds the omniscient log of the step's round.

Deals can be chosen by what happened in them (``--pick``): the cell's first ``games`` deals are played with
progress on and each game's feel values (``stats.feel.game_values``) pick one (PICKS).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardsim import folders, learned, rng, safe_io
from boardsim.cell import Cell
from boardsim.errors import BadInput, BadParameter
from boardsim.games import get as get_game
from boardsim.games.base import Game, Prepared
from boardsim.report import replay_page
from boardsim.runner import MAX_GAMES, as_seat, policies_cell, whole
from boardsim.stats.feel import PICKS, chunk_values

PICK_GAMES = 200  # deals looked at by a pick unless told
SEARCH_PICK_GAMES = 20  # ... by a sweep's replays of a cell with a search seat (each deal costs a search game)


@dataclass
class Replay:
    """A written replay: where, which deal and why."""

    path: Path
    deal: int
    pick: str | None
    reason: str
    score: list[int]
    win: list[float]
    steps: int
    seconds: float = 0.0


@contextmanager
def _progress_on(prep: Prepared) -> Iterator[Prepared]:
    """``prep`` playing with its progress recorded (the chart, the picks' feel values), as it was after."""
    was = prep.progress
    prep.progress = True
    try:
        yield prep
    finally:
        prep.progress = was


def _feel_values(g: Game, prep: Prepared, key: int, games: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    with _progress_on(prep):
        out = g.play(prep, key, 0, games)
    return out, chunk_values(g, out, prep.rules)


def _typical_order(values: Mapping[str, np.ndarray], ok: np.ndarray) -> np.ndarray:
    """Indexes of the games in ``ok``, nearest first to the medians of length, lead changes and margin
    (each standardised; an undefined margin counts as the median)."""
    idx = np.nonzero(ok)[0]
    dist = np.zeros(idx.size)
    for name in ("rounds", "lead_changes", "final_margin"):
        v = np.asarray(values[name], dtype=np.float64)[idx]
        med = np.nanmedian(v) if np.isfinite(v).any() else 0.0
        v = np.where(np.isfinite(v), v, med)
        sd = float(np.std(v)) or 1.0
        dist += ((v - med) / sd) ** 2
    return idx[np.argsort(dist, kind="stable")]


def _none(what: str, n: int) -> BadInput:
    return BadInput("pick", f"{what} in the {n} deals looked at; allowed: another --pick, or more --games")


def pick_deal(g: Game, prep: Prepared, key: int, pick: str, games: int, won_by: int | None = None
              ) -> tuple[int, str]:
    """The deal (game index) among the first ``games`` that ``pick`` names, and a sentence saying why; with
    ``won_by``, only among the deals seat ``won_by`` wins outright."""
    out, values = _feel_values(g, prep, key, games)
    win = np.asarray(out["win"], dtype=np.float64)
    n, P = win.shape
    winner = np.argmax(win, axis=1)
    decided = win[np.arange(n), winner] == 1.0
    ok = np.ones(n, dtype=bool) if won_by is None else win[:, won_by] == 1.0
    among = f"{n} deals" if won_by is None else f"the {int(ok.sum())} of {n} deals P{won_by} wins"
    if not ok.any():
        raise _none(f"P{won_by} wins none", n)
    drama = np.nan_to_num(np.asarray(values["drama"], dtype=np.float64), nan=-1.0)
    margin = np.nan_to_num(np.asarray(values["final_margin"], dtype=np.float64), nan=-1.0)
    labels = [s.label() for s in prep.seats]
    if pick == "longest":
        order = np.lexsort((-np.arange(n), np.asarray(values["turns"]), np.asarray(values["rounds"]), ok))
        i = int(order[-1])
        return i, f"the longest of {among}: {int(values['rounds'][i])} rounds"
    if pick == "typical":
        i = int(_typical_order(values, ok)[0])
        return i, f"the most typical of {among} (nearest the median length, lead changes and margin)"
    if pick == "first-player-loses":
        first = np.asarray(out.get("first_player", np.zeros(n)), dtype=np.int64)
        ok &= win[np.arange(n), first] == 0.0
        if not ok.any():
            raise _none("the first player won or shared every one", n)
        i = int(_typical_order(values, ok)[0])
        return i, f"the first player (P{int(first[i])}) loses; {int(ok.sum())} of {among} went so"
    if pick == "comeback":
        ok &= np.nan_to_num(np.asarray(values["comeback_rate"], dtype=np.float64)) == 1.0
        if not ok.any():
            raise _none("no comeback", n)
        i = int(np.nonzero(ok)[0][np.argmax(drama[ok])])
        return i, f"a comeback: the winner P{int(winner[i])} trailed at the midpoint ({int(ok.sum())} of {among})"
    if pick == "upset":
        share = {lab: float(np.mean([win[:, s].mean() for s in range(P) if labels[s] == lab])) for lab in set(labels)}
        if len(share) > 1:
            weakest = min(share, key=lambda lab: (share[lab], lab))
            ok &= decided & np.array([labels[int(w)] == weakest for w in winner])
            if not ok.any():
                raise _none(f"{weakest} wins none", n)
            i = int(np.nonzero(ok)[0][np.argmax(margin[ok])])
            return i, (f"an upset: {weakest} (win share {share[weakest]:.0%} over {n} deals) wins, "
                       f"the widest of its {int(ok.sum())} wins")
        ok &= decided & (drama > 0)
        if not ok.any():
            raise _none("no winner trailed", n)
        i = int(np.nonzero(ok)[0][np.argmax(drama[ok])])
        return i, f"an upset at a table of one policy: the winner P{int(winner[i])} trailed the furthest"
    raise BadParameter("pick", f"got {pick!r}; allowed: {', '.join(PICKS)}")


def _learned_probabilities(params: np.ndarray, features: np.ndarray, cands: np.ndarray) -> np.ndarray:
    """A learned seat's model probability of each option (softmax at temperature 1) from its packed model."""
    scores = np.zeros(cands.shape[0])
    learned.logits(np.ascontiguousarray(features), np.ascontiguousarray(cands), params, scores)
    e = np.exp(scores - scores.max())
    return e / e.sum()


def _rounds_of_log(g: Game, text: str) -> list[dict[str, Any]]:
    """The trace cut into blocks, each the round its header names (lines before the first header: round 0)."""
    blocks: list[dict[str, Any]] = []
    cur: dict[str, Any] = {"round": 0, "lines": []}
    for line in text.splitlines():
        m = re.match(g.replay_round_header, line)
        if m:
            if cur["lines"]:
                blocks.append(cur)
            cur = {"round": int(m.group(1)), "lines": []}
        cur["lines"].append(line)
    blocks.append(cur)
    # one block per round (Wagons writes one header per seat's turn)
    merged: list[dict[str, Any]] = []
    for b in blocks:
        if merged and merged[-1]["round"] == b["round"]:
            merged[-1]["lines"] += b["lines"]
        else:
            merged.append(b)
    return [{"round": b["round"], "text": "\n".join(b["lines"])} for b in merged]


def gather(g: Game, prep: Prepared, key: int, deal: int, heading: str, cards: Any = None) -> dict[str, Any]:
    """Everything the page shows of game ``deal`` of the prepared table (see the module docstring)."""
    with _progress_on(prep):
        out = g.play(prep, key, deal, 1)
    rec = g.recorder("replay")
    data = rec.record(prep, key, deal, 1)
    if not (np.array_equal(data["score"], out["score"]) and np.array_equal(data["win"], out["win"])):
        raise AssertionError("the recorder's game is not play's game")  # the contract both sides test
    feats, cols, kinds = rec.view_names(prep)
    n_rounds = int(out["rounds"][0])
    r_col = feats.index(g.replay_round_feature)
    # each learned seat's packed model, read once (the seat's own: its model file, the cell's card view)
    models = {s: g.learned_params(seat, prep.n_players, cards) for s, seat in enumerate(prep.seats)
              if seat.policy == "learned"}
    steps = []
    for i in range(data["rows"].shape[0]):
        m = int(data["rows"][i])
        seat = int(data["seat"][i])
        f = data["features"][i]
        c = data["candidates"][i, :m]
        share = data["target"][i, :m]
        value = data["value"][i, :m]
        # a search seat plays some decisions without a search (Art Deco's keep when no sale is a candidate):
        # the recorder gives those one-hot with no value, shown as the choice alone
        searched = prep.seats[seat].policy == "mcts" and (np.count_nonzero(share) > 1 or bool(value.any()))
        prob = _learned_probabilities(models[seat], f, c).round(4).tolist() if seat in models else None
        chosen = int(data["chosen"][i])
        kind = kinds[int(data["kind"][i])]
        options = [{"text": g.describe_option(kind, dict(zip(cols, map(float, row), strict=True)), cards),
                    "row": [_num(x) for x in row], "share": round(float(share[k]), 4) if searched else None,
                    "value": round(float(value[k]), 4) if searched and share[k] > 0 else None,
                    "prob": prob[k] if prob is not None else None, "chosen": k == chosen} for k, row in enumerate(c)]
        options.sort(key=lambda o: not o["chosen"])  # the chosen option first
        steps.append({"round": int(f[r_col]) + g.replay_round_base, "seat": seat, "kind": kind,
                      "view": [_num(x) for x in f], "options": options})
    log = _rounds_of_log(g, g.trace(prep, key, deal))
    tables = {b["round"]: t for b in log if (t := g.replay_table(b["text"])) is not None}
    for s in steps:  # the public table the step's seat saw: the latest drawn at or before its round
        seen = [r for r in tables if r <= s["round"] - g.replay_table_lag]
        s["table"] = max(seen) if seen else None
    return {
        "title": heading,
        "game": g.title,
        "seats": [s.label() for s in prep.seats],
        "policies": [s.policy for s in prep.seats],
        "features": list(feats),
        "columns": list(cols),
        "progress_measure": g.progress_measure,
        "round_name": g.replay_round_name,
        "headline": [f for f in g.replay_headline if f in feats],
        "progress": np.asarray(out["progress"][0][:, :n_rounds], dtype=np.float64).tolist(),
        "score": [int(x) for x in out["score"][0]],
        "win": [float(x) for x in out["win"][0]],
        "steps": steps,
        "tables": {str(r): t for r, t in tables.items()},
        "log": log,
    }


def _num(x: Any) -> float | int:
    x = float(x)
    return int(x) if x.is_integer() and abs(x) < 2 ** 53 else round(x, 4)


def write(data: Mapping[str, Any], path: Path) -> Path:
    """The page, written in one step (a failed write leaves no half page)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    safe_io.write_text(path, replay_page.html_page(data))
    return path


def _play_table(c: Cell, seating: int, key: int, deal: int | None, pick: str | None, games: int, heading: str,
                out: Path, start: float, won_by: int | None = None) -> Replay:
    g, prep = c.game, c.prepared[seating]
    reason = f"deal {deal}, as asked"
    if deal is None:
        deal, reason = pick_deal(g, prep, key, pick or "typical", games, won_by)
    data = gather(g, prep, key, deal, heading + f", deal {deal}", c.cards)
    data.update(reason=reason, pick=pick, deal=deal)
    write(data, out)
    return Replay(out, deal, pick, reason, data["score"], data["win"], len(data["steps"]), time.perf_counter() - start)


def _file_name(stem: str, deal: int | None, pick: str | None) -> str:
    return f"{stem}-{pick or 'typical'}.html" if deal is None else f"{stem}-deal{deal}.html"


def sweep_replays(cell: Cell, seed: int, games: int, picks: Sequence[str], out_dir: Path) -> list[str]:
    """The replays a scenario's ``replays`` asks for: one per pick, of the sweep's first cell as listed
    (arrangement 0), among its first deals (PICK_GAMES, SEARCH_PICK_GAMES with a search seat), written as
    ``replay-cell1-<pick>.html`` into the sweep's folder.  A pick no deal satisfies is skipped with a warning
    (returned), not an error: the sweep's results stand."""
    look = min(_looked_at(cell, None), math.ceil(games / len(cell.prepared)))
    heading = f"{cell.game.title}: cell 1, seed {seed}"
    skipped = []
    for pick in picks:
        try:
            _play_table(cell, 0, rng.cell_key(seed, cell.index), None, pick, look, heading,
                        out_dir / _file_name("replay-cell1", None, pick), time.perf_counter())
        except BadInput as e:
            skipped.append(f"replay {pick}: {e.message}")
    return skipped


def job_replays(g: Game, tables: Sequence[tuple[str, Sequence[Any], str, int | None]], players: int, seed: int,
                rules: Mapping[str, Any] | None, out_dir: Path) -> list[str]:
    """The replays a command writes beside its answer (``cards --replays``, ``ladder --replays``): for each
    (file stem, seats, pick, won_by), one replay into ``out_dir/replay-<stem>.html``, among PICK_GAMES deals
    (SEARCH_PICK_GAMES with a search seat).  A pick no deal satisfies is skipped; returns what was skipped."""
    skipped = []
    for stem, seats, pick, won_by in tables:
        try:
            replay(g, seats, players=players, seed=seed, pick=pick, rules=rules, won_by=won_by,
                   out=out_dir / f"replay-{stem}.html")
        except BadInput as e:
            skipped.append(f"replay {stem}: {e.message}")
    return skipped


def _check_choice(deal: int | None, pick: str | None, games: int | None) -> None:
    if deal is not None:
        whole(deal, "deal", 0, MAX_GAMES - 1)
        if pick is not None:
            raise BadParameter("pick", "given with --deal; allowed: one of --deal or --pick")
    if pick is not None and pick not in PICKS:
        raise BadParameter("pick", f"got {pick!r}; allowed: {', '.join(PICKS)}")
    if games is not None:
        whole(games, "games", 1, 100_000)


def _looked_at(c: Cell, games: int | None) -> int:
    """The deals a pick looks at: ``games``, or by default PICK_GAMES (SEARCH_PICK_GAMES with a search seat,
    whose every deal costs a search game)."""
    return games if games is not None else (SEARCH_PICK_GAMES if c.cost > 1.0 else PICK_GAMES)


def replay(game: str | Game, policies: Sequence[Any] | None = None, players: int | None = None, seed: int = 0,
           deal: int | None = None, pick: str | None = None, games: int | None = None,
           rules: Mapping[str, Any] | None = None, out: str | Path | None = None, won_by: int | None = None,
           cards: Any = None, label: str = "") -> Replay:
    """Write a step-through HTML replay of one deal (docs/guide/replay.md) and return where it went.

    ``policies``, ``players``, ``rules`` and ``seed`` as ``simulate`` and ``trace_game`` take them (seats as
    listed: deal ``d`` is row ``d`` of ``simulate(..., seating="fixed")``).  Name the deal (``deal``) or let
    ``pick`` choose it among the first ``games`` deals (PICKS; neither: ``typical``; ``games`` default 200, 20
    with a search seat); ``won_by``: only among
    the deals that seat wins ("watch a game where the card's owner won").  ``cards``: a card table (default
    the bundled one); ``label``: words added to the page's title.  ``out``: the HTML file (default
    ``reports/replay-<game>-<pick or deal>.html``)."""
    start = time.perf_counter()
    g = get_game(game) if isinstance(game, str) else game
    whole(seed, "seed", 0, rng.MAX_SEED)
    _check_choice(deal, pick, games)
    seats = [as_seat(p) for p in (policies or [g.default_policy])]
    n_players = players if players is not None else (len(seats) if len(seats) > 1 else g.default_players)
    if won_by is not None:
        whole(won_by, "won_by", 0, n_players - 1)
        if deal is not None:
            raise BadParameter("won_by", "given with --deal; allowed: --won-by with --pick (or alone)")
    c = policies_cell(g, n_players, seats, rules, g.card_table() if cards is None else cards, index=0,
                      seating_design="fixed")
    path = _out_path(out, Path("reports") / _file_name(f"replay-{g.name}", deal, pick))
    heading = f"{g.title}{' (' + label + ')' if label else ''}: seed {seed}, {n_players} players"
    return _play_table(c, 0, rng.cell_key(seed, 0), deal, pick, _looked_at(c, games), heading, path, start, won_by)


def replay_folder(folder: str | Path, cell: int, deal: int | None = None, pick: str | None = None,
                  games: int | None = None, seating: int = 0, out: str | Path | None = None) -> Replay:
    """A replay of a deal a sweep played: cell ``cell`` (1-based, as the report numbers them) of the sweep
    whose folder is ``folder``, seat arrangement ``seating`` (0: the listed order), from the folder's
    ``run.json`` (its scenario file and seed).  The replayed game is the sweep's game, to the score."""
    from boardsim.scenario import load_scenario

    start = time.perf_counter()
    folder = Path(folder)
    meta_path = folder / "run.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        prov = meta["provenance"]
        scenario_file = prov["scenario"]
    except (OSError, ValueError, KeyError, TypeError):
        raise BadInput("folder", f"{folder} holds no sweep's run.json; allowed: a folder `boardsim sweep` wrote",
                       str(folder)) from None
    if not Path(scenario_file).is_file():
        raise BadInput("folder", f"the sweep's scenario {scenario_file} is not here (run.json names it relative to "
                                 "the folder the sweep ran in); allowed: run replay from that folder", str(meta_path))
    sc = load_scenario(scenario_file)
    cells: list[Cell] = sc.cells()
    if isinstance(cell, bool) or not isinstance(cell, int) or not 1 <= cell <= len(cells):
        raise BadParameter("cell", f"got {cell!r}; allowed: an integer in [1, {len(cells)}] (the sweep's cells)")
    c = cells[cell - 1]
    if isinstance(seating, bool) or not isinstance(seating, int) or not 0 <= seating < len(c.prepared):
        raise BadParameter("seating", f"got {seating!r}; allowed: an integer in [0, {len(c.prepared) - 1}] "
                                      "(the cell's seat arrangements)")
    _check_choice(deal, pick, games)
    seed = int(prov.get("seed", sc.seed))
    deals = math.ceil(sc.games / len(c.prepared))
    if deal is not None and deal >= deals:
        raise BadParameter("deal", f"got {deal}; allowed: an integer in [0, {deals - 1}] (the sweep's deals)")
    games = min(_looked_at(c, games), deals)
    path = _out_path(out, folder / _file_name(f"replay-cell{cell}", deal, pick))
    heading = f"{c.game.title}: {sc.name}, seed {seed}, cell {cell}, seating {seating}"
    return _play_table(c, seating, rng.cell_key(seed, c.index), deal, pick, games, heading, path, start)


def _out_path(out: str | Path | None, default: Path) -> Path:
    """The HTML file to write, checked before a game is played: not a folder, in a folder that can be made."""
    p = default if out is None else Path(str(out))
    if out is not None and (not str(out).strip() or "\0" in str(out)):
        raise BadParameter("out", f"got {str(out)!r}; allowed: the path of the HTML file to write")
    if p.is_dir():
        raise BadParameter("out", "is a folder; allowed: the path of the HTML file to write", str(p))
    folders.output_folder(p.parent, p.parent)  # no file where a folder of the path belongs
    folders.check_writable(p.parent)
    return p
