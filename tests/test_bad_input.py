"""Every bad input ends in one line ``error: <file>: <key>: ...``, exit status 2, and an unchanged output folder.

Each case builds its inputs in a fresh folder and returns the argv; the output folder ``out`` is
snapshotted (names and bytes of everything below it) before and after the run.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest

import boardsim
from boardsim import cli, safe_io
from boardsim.analysis.jobs import cards_job
from boardsim.errors import BadInput, BadParameter
from boardsim.scenario import load_scenario

GOOD = 'game = "art_deco"\ngames = 40\nseed = 1\nchunk_size = 20\n'


def snapshot(folder: Path) -> dict[str, bytes | None] | None:
    """Names and bytes of everything below ``folder``; None if it does not exist (an empty folder made by a
    refused run is a change too)."""
    if not folder.exists() and not folder.is_symlink():
        return None
    out: dict[str, bytes | None] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root) / name
            rel = p.relative_to(folder).as_posix()
            out[rel] = p.read_bytes() if p.is_file() and not p.is_symlink() else None
    return out


def scenario(tmp: Path, body: str, name: str = "s.toml") -> str:
    path = tmp / name
    path.write_text(body)
    return str(path)


def sweep(tmp: Path, body: str = GOOD, *flags: str) -> list[str]:
    return ["sweep", scenario(tmp, body), "--out", str(tmp / "out"), "--quiet", *flags]


def _non_utf8(tmp):
    (tmp / "s.toml").write_bytes(b'game = "art_deco"\ntitle = "caf\xe9"\n')
    return ["sweep", str(tmp / "s.toml"), "--out", str(tmp / "out")], "s.toml", "toml"


def _binary(tmp):
    (tmp / "s.toml").write_bytes(b"\x00\x01\x02game\x00")
    return ["sweep", str(tmp / "s.toml"), "--out", str(tmp / "out")], "s.toml", "toml"


def _directory(tmp):
    (tmp / "s.toml").mkdir()
    return ["sweep", str(tmp / "s.toml"), "--out", str(tmp / "out")], "s.toml", "folder"


def _card_file(content: bytes, key: str):
    def case(tmp):
        (tmp / "cards.csv").write_bytes(content)
        return sweep(tmp, GOOD + 'card_file = "cards.csv"\n'), "cards.csv", key
    return case


def _out_is_file(tmp):
    (tmp / "out").write_text("a file")
    return sweep(tmp), "out", "--out"


def _out_under_file(tmp):
    (tmp / "f").write_text("a file")
    return ["sweep", scenario(tmp, GOOD), "--out", str(tmp / "f" / "out")], "out", "--out"


def _chunk_is_dir(tmp):
    (tmp / "out" / "chunks" / "cell-0000" / "deals-000000000-000000019.npz").mkdir(parents=True)
    return sweep(tmp), "deals-000000000-000000019.npz", "--out"


def _cell_json_is_dir(tmp):
    (tmp / "out" / "chunks" / "cell-0000" / "cell.json").mkdir(parents=True)
    return sweep(tmp), "cell.json", "--out"


def _report_bad_run_json(tmp):
    out = tmp / "out"
    out.mkdir()
    (out / "summary.csv").write_text("a,b\n1,2\n")
    (out / "run.json").write_text("{not json")
    return ["report", str(out)], "run.json", "run.json"


def _report_wrong_columns(tmp):
    out = tmp / "out"
    out.mkdir()
    (out / "summary.csv").write_text("a,b\n1,2\n")
    return ["report", str(out)], "summary.csv", "columns"


def _scheduler_file(tmp):
    (tmp / "sched.json").write_text("{broken")
    return sweep(tmp, GOOD, "--scheduler-file", str(tmp / "sched.json")), "sched.json", "--scheduler-file"


def _locked(tmp):
    """A second sweep into a folder another process holds: the lock file names that pid."""
    out = tmp / "out"
    out.mkdir()
    (out / safe_io.LOCK_NAME).write_text("424242\n")
    lock = safe_io.FolderLock(out)
    holder = os.fork()
    if holder == 0:  # the child takes the lock and waits to be killed
        lock.__enter__()
        os.write(w, b"x")
        signal.pause()  # until the test kills it
    os.read(r, 1)
    _HOLDERS.append(holder)
    return sweep(tmp), "out", "--out"


def _mcts(param: str, key: str, game: str = "wagons", other: str = "first"):
    def case(tmp):
        body = (f'game = "{game}"\ngames = 4\nseed = 1\n[[seats]]\npolicy = "mcts"\n'
                f"params = {{ {param} }}\n[[seats]]\npolicy = \"{other}\"\n")
        return sweep(tmp, body), "s.toml", key
    return case


r, w = os.pipe()
_HOLDERS: list[int] = []


def _patch(tmp: Path, target: str, *flags: str) -> list[str]:
    return ["patch", target, "--out", str(tmp / "out"), "--quiet", *flags]


def _non_utf8_file_name(tmp: Path):
    """D5: a file name that is no UTF-8 text names the scenario: refused before any game, not at the chart."""
    path = tmp / os.fsdecode(b"caf\xe9.toml")
    path.write_text(GOOD)
    return ["sweep", str(path), "--quiet"], "", "name"


def _owned(tmp: Path, key: str, owner: str) -> bool:
    """A folder holding another run's report: run.json naming its owner, and a table."""
    out = tmp / "out"
    out.mkdir()
    (out / "run.json").write_text(f'{{"title": "theirs", "{key}": "{owner}"}}')
    (out / "summary.csv").write_text("theirs\n")
    return True


def _patch_out_file(tmp: Path):
    (tmp / "out").write_text("mine")
    return _patch(tmp, "fliptoons"), "", "--out"


CASES = {
    # flags rejected with --fresh must not delete saved chunks (checked by the snapshot: see test below)
    "workers without processes": lambda t: (sweep(t, GOOD, "--fresh", "--workers", "2"), "", "--workers"),
    "unknown executor": lambda t: (sweep(t, GOOD, "--fresh", "--executor", "foo"), "", "--executor"),
    "games too many": lambda t: (sweep(t, GOOD.replace("games = 40", "games = 9223372036854775807")),
                                 "s.toml", "games"),
    "seed too large": lambda t: (sweep(t, GOOD.replace("seed = 1", "seed = 9223372036854775808")), "s.toml", "seed"),
    "name escapes": lambda t: (["sweep", scenario(t, GOOD + 'name = "../../x"\n')], "s.toml", "name"),
    "absolute name": lambda t: (["sweep", scenario(t, GOOD + 'name = "/tmp/x"\n')], "s.toml", "name"),
    "empty name": lambda t: (["sweep", scenario(t, GOOD + 'name = ""\n')], "s.toml", "name"),
    "NUL in name": lambda t: (["sweep", scenario(t, GOOD + 'name = "a\\u0000b"\n')], "s.toml", "name"),
    "empty out": lambda t: (["sweep", scenario(t, GOOD), "--out", ""], "", "--out"),
    "not UTF-8": _non_utf8,
    "binary": _binary,
    "a directory": _directory,
    "empty card file": _card_file(b"", "card_file"),
    "non-UTF-8 card file": _card_file(b"name,value,copies\nv\xe9,1,2\n", "card_file"),
    "card row names the right row": _card_file(b"name,value,copies\nv1,1,2\nv2,x,2\n", "row 3.value"),
    "card value too large": _card_file(b"name,value,copies\nv1,4611686018427387904,2\n", "row 2.value"),
    "copies 10^12": lambda t: (sweep(t, GOOD + "[cards.v3]\ncopies = 1000000000000\n"), "s.toml",
                               "cards.v3.copies"),
    "card value edit too large": lambda t: (sweep(t, GOOD + "[cards.v3]\nvalue = 10000000\n"), "s.toml",
                                            "cards.v3.value"),
    "out is a file": _out_is_file,
    "out under a file": _out_under_file,
    "chunk path is a folder": _chunk_is_dir,
    "cell.json is a folder": _cell_json_is_dir,
    "report: bad run.json": _report_bad_run_json,
    "report: wrong columns": _report_wrong_columns,
    "play index 2**64": lambda t: (["play", "art_deco", "--index", str(2**64)], "", "--index"),
    "scheduler file not JSON": _scheduler_file,
    "fliptoons actions 0": lambda t: (sweep(t, 'game = "fliptoons"\ngames = 10\n[rules]\nactions = 0\n'), "s.toml",
                                      "rules.actions"),
    "tournament unknown policy": lambda t: (["tournament", "art_deco", "--policies", "par,nope", "--games", "10",
                                             "--out", str(t / "out")], "", "nope"),
    "tournament 99 players": lambda t: (["tournament", "art_deco", "--policies", "par,random", "--players", "99",
                                         "--games", "10", "--out", str(t / "out")], "", "players"),
    "tournament bad rule": lambda t: (["tournament", "art_deco", "--policies", "par,random", "--rule", "nope=1",
                                       "--games", "10", "--out", str(t / "out")], "", "nope"),
    "optimize reversed bounds": lambda t: (["optimize", scenario(t, GOOD + '[optimize]\nseat = 0\n'
                                                                  'params = { hard = [2.0, 1.0] }\n'),
                                            "--out", str(t / "out")], "s.toml", "hard"),
    "optimize empty params": lambda t: (["optimize", scenario(t, GOOD + '[optimize]\nseat = 0\nparams = {}\n'),
                                         "--out", str(t / "out")], "s.toml", "params"),
    "cards bad rule": lambda t: (["cards", "fliptoons", "--rule", "nope=1", "--games", "10",
                                  "--out", str(t / "out")], "", "nope"),
    "optimize seat 9": lambda t: (sweep(t, GOOD + '[optimize]\nseat = 9\nparams = {}\n'), "s.toml", "optimize.seat"),
    "tournament games key": lambda t: (sweep(t, GOOD + '[tournament]\npolicies = ["par"]\ngames = 0\n'), "s.toml",
                                       "tournament.games"),
    "locked folder": _locked,
    # learn (issue 40): refused before the folder is made or a game is recorded
    "learn unknown teacher": lambda t: (["learn", "art_deco", "--teacher", "nope", "--quiet", "--out",
                                         str(t / "out")], "", "--teacher"),
    "learn rounds 0": lambda t: (["learn", "art_deco", "--rounds", "0", "--quiet", "--out", str(t / "out")], "",
                                 "--rounds"),
    "learn bad model in a seat": lambda t: (["tournament", "art_deco", "--policies",
                                             f"learned(model={t / 'none.npz'}),par", "--games", "10", "--out",
                                             str(t / "out")], "none.npz", "model"),
    # the search player's parameters (issue 25): named by seat and key, refused before any game is played
    "mcts iterations 0": _mcts("iterations = 0", "seats[0].params.iterations"),
    "mcts iterations -1": _mcts("iterations = -1", "seats[0].params.iterations"),
    "mcts playout unknown": _mcts('playout = "greedy_bot"', "seats[0].params.playout"),
    "mcts playout mcts": _mcts('playout = "mcts"', "seats[0].params.playout"),
    "mcts c < 0": _mcts("c = -0.5", "seats[0].params.c"),
    "cards --base mcts iterations 0": lambda t: (["cards", "fliptoons", "--base", "mcts(iterations=0)", "--out",
                                                  str(t / "out")], "", "--base.iterations"),
    "cards --base two policies": lambda t: (["cards", "fliptoons", "--base", "random,mcts", "--out", str(t / "out")],
                                            "", "--base"),
    # the skill axis (issue 26): several base players, each checked
    "cards --base twice": lambda t: (["cards", "fliptoons", "--base", "fame_per_cost,fame_per_cost", "--out",
                                      str(t / "out")], "", "--base"),
    "cards --base cannot favour": lambda t: (["cards", "fliptoons", "--base", "fame_per_cost,highest_rank",
                                              "--out", str(t / "out")], "", "--base"),
    "cards --base unknown in a list": lambda t: (["cards", "fliptoons", "--base", "fame_per_cost,nope", "--out",
                                                  str(t / "out")], "", "policy"),
    "cards --base mcts favour unknown": lambda t: (["cards", "fliptoons", "--base",
                                                    "mcts(iterations=5, favour=[Elefant])", "--out", str(t / "out")],
                                                   "", "--base.favour"),
    "skill not a table": lambda t: (sweep(t, GOOD + 'skill = 3\n'), "s.toml", "skill"),
    "skill unknown key": lambda t: (sweep(t, GOOD + '[skill]\nlevel = ["par"]\n'), "s.toml", "skill.level"),
    "skill levels empty": lambda t: (sweep(t, GOOD + '[skill]\nlevels = []\n'), "s.toml", "skill.levels"),
    "skill level twice": lambda t: (sweep(t, GOOD + '[skill]\nlevels = ["par", "par"]\n'), "s.toml",
                                    "skill.levels[1]"),
    "skill level unknown policy": lambda t: (sweep(t, GOOD + '[skill]\nlevels = ["par", "nope"]\n'), "s.toml",
                                             "skill.levels[1].policy"),
    "skill level bad param": lambda t: (sweep(t, GOOD + '[skill]\nlevels = [{policy = "mcts", params = '
                                                        '{iterations = 0}}]\n'), "s.toml", "iterations"),
    "fliptoons mcts iterations 0": _mcts("iterations = 0", "seats[0].params.iterations", "fliptoons", "random"),
    "fliptoons mcts playout lookahead": _mcts('playout = "lookahead"', "seats[0].params.playout", "fliptoons",
                                              "random"),
    # patch (issue 27): every flag, field and span checked before the folder is made or a game played
    "patch unknown game": lambda t: (_patch(t, "nogame"), "", "game"),
    "patch span 0": lambda t: (_patch(t, "fliptoons", "--span", "0"), "", "--span"),
    "patch span words": lambda t: (_patch(t, "fliptoons", "--span", "two"), "", "--span"),
    "patch max-edits -1": lambda t: (_patch(t, "fliptoons", "--max-edits", "-1"), "", "--max-edits"),
    "patch max-edits 101": lambda t: (_patch(t, "fliptoons", "--max-edits", "101"), "", "--max-edits"),
    "patch games 5": lambda t: (_patch(t, "fliptoons", "--games", "5"), "", "--games"),
    "patch field unknown": lambda t: (_patch(t, "fliptoons", "--fields", "fame,power"), "", "--fields"),
    "patch field not numeric": lambda t: (_patch(t, "fliptoons", "--fields", "bonus"), "", "--fields"),
    "patch field empty": lambda t: (_patch(t, "fliptoons", "--fields", ","), "", "--fields"),
    "patch wagons card front": lambda t: (_patch(t, "wagons", "--fields", "tl_land"), "", "--fields"),
    "patch objective unknown": lambda t: (_patch(t, "fliptoons", "--objective", "fun"), "", "--objective"),
    "patch feel target from a curve": lambda t: (_patch(t, "fliptoons", "--objective", "cards+decisive_round>=6"), "",
                                                 "--objective"),
    "patch metagame target with one base": lambda t: (_patch(t, "art_deco", "--objective", "nash_support>=2"), "",
                                                      "--base"),
    "patch feel target not a number": lambda t: (_patch(t, "art_deco", "--objective", "comeback_rate>=lots"), "",
                                                 "--objective"),
    "patch wagons cards": lambda t: (_patch(t, "wagons", "--objective", "cards"), "", "--objective"),
    "patch players 9": lambda t: (_patch(t, "fliptoons", "--players", "2,9"), "", "--players"),
    "patch players 1": lambda t: (_patch(t, "fliptoons", "--players", "1"), "", "--players"),
    "patch wagons 3 players": lambda t: (_patch(t, "wagons", "--players", "3"), "", "--players"),
    "patch base unknown": lambda t: (_patch(t, "fliptoons", "--base", "nope"), "", "policy"),
    "patch base cannot favour": lambda t: (_patch(t, "fliptoons", "--base", "highest_rank"), "", "--base"),
    "patch base twice": lambda t: (_patch(t, "fliptoons", "--base", "fame_per_cost,fame_per_cost"), "", "--base"),
    "patch bad rule": lambda t: (_patch(t, "fliptoons", "--rule", "nope=1"), "", "rules"),
    "patch workers local": lambda t: (_patch(t, "fliptoons", "--workers", "2"), "", "--workers"),
    "patch executor unknown": lambda t: (_patch(t, "fliptoons", "--executor", "mpi"), "", "--executor"),
    "patch threads 0": lambda t: (_patch(t, "fliptoons", "--threads", "0"), "", "--threads"),
    "patch threads 9999": lambda t: (_patch(t, "fliptoons", "--threads", "9999"), "", "threads"),
    "patch out is a file": _patch_out_file,
    "patch judge iterations 0": lambda t: (_patch(t, "fliptoons", "--judge", "mcts(iterations=0)"), "",
                                           "--judge.iterations"),
    "patch judge is a base": lambda t: (_patch(t, "fliptoons", "--judge", "fame_per_cost"), "", "--judge"),
    "patch judge cannot favour": lambda t: (_patch(t, "fliptoons", "--judge", "highest_rank"), "", "--judge"),
    "patch scenario bad card edit": lambda t: (["patch", scenario(t, 'game = "fliptoons"\n[cards.Dog]\nfame = "x"\n'),
                                                "--out", str(t / "out")], "s.toml", "cards.Dog.fame"),
    # every command (issue 29): each flag checked before --out is made or touched; API parameters shown as flags
    "sweep threads 9999": lambda t: (sweep(t, GOOD, "--threads", "9999"), "", "--threads"),
    "sweep dask-local 9999": lambda t: (sweep(t, GOOD, "--fresh", "--dask-local", "9999"), "", "--dask-local"),
    "sweep processes threads 9999": lambda t: (sweep(t, GOOD, "--executor", "processes", "--workers", "1",
                                                     "--threads", "9999"), "", "--threads"),
    "play unknown policy": lambda t: (["play", "art_deco", "--policies", "par,nope"], "", "nope"),
    "play bad rule": lambda t: (["play", "art_deco", "--rule", "nope=1"], "", "nope"),
    "play 99 players": lambda t: (["play", "art_deco", "--players", "99"], "", "players"),
    "tournament threads 9999": lambda t: (_tournament(t, "--threads", "9999"), "", "--threads"),
    "tournament field without a field": lambda t: (_tournament(t, "--mode", "field"), "", "--field"),
    "tournament policy twice": lambda t: (_tournament(t, "--policies", "par,par"), "", "--policies"),
    "tournament bad seating": lambda t: (_tournament(t, "--seating", "round"), "", "--seating"),
    "ladder budgets 0": lambda t: (_ladder(t, "--budgets", "10,0"), "", "--budgets"),
    "ladder unknown policy": lambda t: (_ladder(t, "--policies", "par,nope"), "", "nope"),
    "ladder bad policy syntax": lambda t: (_ladder(t, "--policies", "par(x"), "", "--policies"),
    "ladder 99 players": lambda t: (_ladder(t, "--players", "99"), "", "players"),
    "ladder threads 9999": lambda t: (_ladder(t, "--threads", "9999"), "", "--threads"),
    "ladder games 0": lambda t: (_ladder(t, "--games", "0"), "", "--games"),
    "optimize feel target from a curve": lambda t: (["optimize", scenario(t, GOOD + '[optimize]\nseat = 0\n'
                                                                   'params = { hard = [1.0, 2.0] }\n'
                                                                   'objective = "decisive_round>=3"\n'),
                                                     "--out", str(t / "out")], "s.toml", "optimize.objective"),
    "optimize no table": lambda t: (["optimize", scenario(t, GOOD), "--out", str(t / "out")], "s.toml", "optimize"),
    "optimize threads 9999": lambda t: (["optimize", scenario(t, GOOD + '[optimize]\nseat = 0\n'
                                                                 'params = { hard = [1.0, 2.0] }\n'),
                                         "--threads", "9999", "--out", str(t / "out")], "", "--threads"),
    "optimize maxiter 0": lambda t: (["optimize", scenario(t, GOOD), "--maxiter", "0", "--out", str(t / "out")],
                                     "", "--maxiter"),
    "cards unknown card": lambda t: (_cards(t, "--cards", "Dog,Unicorn"), "", "--cards"),
    "cards sweep unknown field": lambda t: (_cards(t, "--sweep", "power"), "", "--sweep"),
    "cards sweep text field": lambda t: (_cards(t, "--sweep", "name"), "", "--sweep"),
    "cards players 9": lambda t: (_cards(t, "--players", "2,9"), "", "--players"),
    "cards threads 9999": lambda t: (_cards(t, "--threads", "9999"), "", "--threads"),
    "cards unknown game": lambda t: (["cards", "nogame", "--out", str(t / "out")], "", "game"),
    "cards out is a file": lambda t: ((t / "out").write_text("mine") and _cards(t), "", "--out"),
    "patch dask-local 9999": lambda t: (_patch(t, "fliptoons", "--dask-local", "9999"), "", "--dask-local"),
    # D2: a command never overwrites another run's folder (a sweep's, another command's) unless --force
    "ladder into a sweep's folder": lambda t: (_owned(t, "scenario id", "art_deco:s") and _ladder(t), "out", "--out"),
    "patch into a ladder's folder": lambda t: (_owned(t, "run id", "ladder fliptoons") and _patch(t, "fliptoons"),
                                               "out", "--out"),
    "tournament into a patch's folder": lambda t: (_owned(t, "run id", "patch art_deco") and _tournament(t),
                                                   "out", "--out"),
    "cards into unknown results": lambda t: ((t / "out").mkdir() or (t / "out" / "summary.csv").write_text("x")
                                             and _cards(t), "out", "--out"),
    "file name not UTF-8": _non_utf8_file_name,
    "patch into a locked folder": lambda t: (_locked(t) and _patch(t, "fliptoons", "--max-edits", "0",
                                                                   "--games", "40"), "out", "--out"),
    "report not a results folder": lambda t: (["report", str(t / "out")], "out", "folder"),
    "meta without per-deal comparisons": lambda t: ((t / "out").mkdir() or ["meta", str(t / "out")], "out",
                                                    "tournament_per_deal.npz"),
    "list unknown game": lambda t: (["list", "nogame"], "", "game"),
    # feel (issue 43): flags and the scenario's [feel] table checked before a game is played
    "feel players 9": lambda t: (_feel(t, "--players", "9"), "", "--players"),
    "feel comeback -1": lambda t: (_feel(t, "--comeback", "-1"), "", "--comeback"),
    "feel unknown level": lambda t: (_feel(t, "--levels", "nonsense"), "", "--levels[0]"),
    "feel scenario bad key": lambda t: (["feel", scenario(t, 'game = "fliptoons"\n[feel]\nbogus = 1\n'), "--quiet",
                                         "--out", str(t / "out")], "s.toml", "feel.bogus"),
    # replay (issue 44): the deal, the pick and the folder checked before a game is played
    "replay unknown pick": lambda t: (["replay", "art_deco", "--pick", "dull", "--out", str(t / "out" / "r.html")],
                                      "", "--pick"),
    "replay deal and pick": lambda t: (["replay", "art_deco", "--deal", "1", "--pick", "upset"], "", "--pick"),
    "replay folder without a sweep": lambda t: ((t / "out").mkdir() or ["replay", str(t / "out"), "--cell", "1"],
                                                "out", "folder"),
}


def _feel(tmp: Path, *flags: str) -> list[str]:
    return ["feel", "fliptoons", "--deals", "10", "--quiet", "--out", str(tmp / "out"), *flags]


def _tournament(tmp: Path, *flags: str) -> list[str]:
    policies = [] if "--policies" in flags else ["--policies", "par,random"]
    return ["tournament", "art_deco", *policies, "--games", "10", "--quiet", "--out", str(tmp / "out"), *flags]


def _ladder(tmp: Path, *flags: str) -> list[str]:
    return ["ladder", "art_deco", "--games", "10", "--budgets", "5", "--quiet", "--out", str(tmp / "out"), *flags]


def _cards(tmp: Path, *flags: str) -> list[str]:
    return ["cards", "fliptoons", "--games", "10", "--out", str(tmp / "out"), *flags]


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, case, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a default reports/<name>/ would land here
    argv, file, key = CASES[case](tmp_path)
    if case in ("workers without processes", "unknown executor"):  # saved chunks that --fresh must keep
        chunk = tmp_path / "out" / "chunks" / "cell-0000" / "deals-000000000-000000019.npz"
        chunk.parent.mkdir(parents=True)
        chunk.write_bytes(b"saved")
    before = snapshot(tmp_path / "out"), snapshot(tmp_path / "reports")
    try:
        try:
            code = cli.main(argv)
        except SystemExit as e:  # argparse's own one-line errors
            code = e.code
    finally:
        _reap_holders()
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert file in err and key in err, err
    assert (snapshot(tmp_path / "out"), snapshot(tmp_path / "reports")) == before


def test_every_command_has_a_bad_input_case():
    commands = set(cli.build_parser()._subparsers._group_actions[0].choices)
    covered = set()
    for case in CASES.values():
        if case is _locked:  # forks a lock holder; a sweep case anyway
            continue
        try:
            with TemporaryDirectory() as tmp:
                covered.add(case(Path(tmp))[0][0])
        finally:  # a case that locks its folder forks a holder: never leave it behind
            _reap_holders()
    assert commands <= covered, commands - covered


def _reap_holders() -> None:
    for pid in _HOLDERS:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    _HOLDERS.clear()


@pytest.mark.parametrize(("call", "key"), [
    (lambda t: boardsim.simulate("art_deco", 10, threads=9999), "threads"),
    (lambda t: boardsim.simulate("art_deco", 0), "n_games"),
    (lambda t: boardsim.simulate("art_deco", 10, executor="local", workers=2), "workers"),
    (lambda t: boardsim.simulate("art_deco", 10, executor="mpi"), "executor"),
    (lambda t: boardsim.sweep(scenario(t, GOOD), out=t / "out", games=0), "games"),
    (lambda t: boardsim.sweep(scenario(t, GOOD), out=t / "out", executor="processes", workers=10**6), "workers"),
    (lambda t: boardsim.sweep(scenario(t, GOOD), out="", progress=False), "out"),
    (lambda t: boardsim.patch("fliptoons", span=0, out=t / "out"), "span"),
    (lambda t: boardsim.patch("fliptoons", base="mcts(iterations=0)", out=t / "out"), "base.iterations"),
    (lambda t: boardsim.patch("fliptoons", base=("mcts", {"iterations": 0}), out=t / "out"), "base.iterations"),
    (lambda t: boardsim.patch("fliptoons", judge=["fame_per_cost", "fame_per_cost"], out=t / "out"), "judge"),
    (lambda t: boardsim.tournament("art_deco", ["par", "par"]), "policies"),
    (lambda t: boardsim.ladder("art_deco", budgets=[0]), "budgets"),
    (lambda t: cards_job("fliptoons", cards=["Unicorn"], out=t / "out"), "cards"),
    (lambda t: cards_job("fliptoons", sweep="power", out=t / "out"), "sweep"),
])
def test_python_api_errors_name_the_parameter_not_a_flag(tmp_path, call, key):
    with pytest.raises(BadInput) as e:
        call(tmp_path)
    assert e.value.key == key and "--" not in e.value.key, e.value.line()
    assert not (tmp_path / "out").exists()


def test_the_cli_turns_a_parameter_into_its_flag(tmp_path):
    args = cli.build_parser().parse_args(["sweep", "s.toml", "--dask-local", "2"])
    assert cli.as_flag(BadParameter("scheduler_file", "m"), args).key == "--scheduler-file"
    assert cli.as_flag(BadParameter("workers", "m"), args).key == "--dask-local"  # --dask-local N is workers=N
    assert cli.as_flag(BadParameter("worker_timeout", "m"), args).key == "worker_timeout"  # no such flag
    assert cli.as_flag(BadInput("games", "m", "s.toml"), args).key == "games"  # a scenario key stays one
    patch = cli.build_parser().parse_args(["patch", "fliptoons"])
    assert cli.as_flag(BadParameter("base.iterations", "m"), patch).key == "--base.iterations"
    assert cli.as_flag(BadParameter("max_edits", "m"), patch).key == "--max-edits"



def test_the_same_mistake_from_python_and_from_the_cli(tmp_path, capsys):
    """The API names the parameter; the CLI prints the same message under the flag."""
    path = scenario(tmp_path, GOOD)
    with pytest.raises(BadInput) as e:
        boardsim.sweep(path, out=tmp_path / "out", executor="local", workers=2, progress=False)
    assert e.value.key == "workers"
    assert cli.main(["sweep", path, "--out", str(tmp_path / "out"), "--workers", "2"]) == 2
    assert capsys.readouterr().err == f"error: --workers: {e.value.message}\n"
    assert not (tmp_path / "out").exists()


def test_every_seed_validation_accepts_runs(tmp_path):
    path = scenario(tmp_path, GOOD.replace("seed = 1", f"seed = {2**63 - 1}"))
    assert load_scenario(path).seed == 2**63 - 1
    assert cli.main(["sweep", path, "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert len(list((tmp_path / "out" / "chunks").glob("cell-*/deals-*.npz"))) == 2
