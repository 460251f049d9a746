"""The CLI: bad input ends in one line and exit status 2; sweeps write their report."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from boardsim import cli
from boardsim import sweeps as sweep_mod


def run(argv, capsys):
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def write(tmp_path, text, name="s.toml"):
    f = tmp_path / name
    f.write_text(text)
    return str(f)


@pytest.mark.parametrize(
    "text, expect",
    [
        ('game = "chess"\n', "game: unknown game 'chess' (known: art_deco"),
        ('game = "art_deco"\n[[seats]]\npolicy = "greedyy"\n', "seats[0].policy: unknown policy 'greedyy'"),
        ('game = "art_deco"\n[rules]\nbid_ceilling = 3\n', "rules.bid_ceilling: unknown option"),
        ('game = "art_deco"\n[rules]\nsale_price_factor = -1\n', "rules.sale_price_factor: got -1"),
        ('game = "art_deco"\n[cards.v99]\ncopies = 2\n', "cards.v99: unknown card 'v99'"),
        ('game = "art_deco"\ngames = "many"\n', "games: got 'many'"),
        ('game = "art_deco\n', "toml: malformed TOML"),
    ],
)
def test_bad_scenario_is_one_line_exit_2(tmp_path, capsys, text, expect):
    path = write(tmp_path, text)
    code, out, err = run(["sweep", path, "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"error: {path}: ")
    assert expect in err


def test_bad_flags(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["sweep", "x.toml", "--games", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--games" in err and "positive integer" in err
    with pytest.raises(SystemExit) as e:
        cli.main(["sweep", "x.toml", "--colour", "red"])
    assert e.value.code == 2
    assert "unrecognized arguments: --colour" in capsys.readouterr().err
    code, _, err = run(["sweep", "missing.toml"], capsys)
    assert code == 2 and err == "error: missing.toml: no such file\n"
    code, _, err = run(["play", "art_deco", "--policies", "par,nope"], capsys)
    assert code == 2 and "--policies[1]" in err and "nope" in err
    code, _, err = run(["play", "art_deco", "--rule", "rounds=0"], capsys)
    assert code == 2 and "rules.rounds" in err
    code, _, err = run(["sweep", "scenarios/quickstart.toml", "--threads", "999"], capsys)
    assert code == 2 and "threads" in err


def test_no_traceback_from_the_module_entry_point(tmp_path):
    path = write(tmp_path, 'game = "art_deco"\nplayers = 9\n')
    proc = subprocess.run([sys.executable, "-m", "boardsim", "sweep", path], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"error: {path}: players: got 9; Art Deco allows 2 to 4 players"


def test_sweep_writes_csv_png_html(tmp_path, capsys):
    path = write(tmp_path, """
name = "e2e"
title = "End to end"
game = "art_deco"
games = 800
seed = 3
seating = "cyclic"
[[seats]]
policy = "par"
[[seats]]
policy = "eligibility"
[grid]
players = [2, 3]
"rules.rounds" = [6, 10]
""")
    out = tmp_path / "out"
    code, stdout, _ = run(["sweep", path, "--out", str(out), "--threads", "1"], capsys)
    assert code == 0 and "4 cells" in stdout
    for name in ("summary.csv", "positions.csv", "scores.csv", "run.json", "winrate.png", "scores.png",
                 "index.html"):
        assert (out / name).stat().st_size > 0
    summary = pd.read_csv(out / "summary.csv")
    # one row per seat, then one per distinct policy: 2 + 2 rows at 2 players, 3 + 2 at 3
    assert len(summary) == 2 * (2 + 2) + 2 * (3 + 2)
    assert list(summary["level"].value_counts().sort_index()) == [4 * 2, 2 * 2 + 2 * 3]
    assert (summary["win_lo"] <= summary["win_rate"]).all() and (summary["win_rate"] <= summary["win_hi"]).all()
    assert (summary["games"] >= 800).all()
    html = (out / "index.html").read_text()
    assert "winrate.png" in html and "<figcaption>" in html and "seed" in html


def test_interrupted_sweep_keeps_finished_cells(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, 'name = "cut"\ngame = "art_deco"\ngames = 200\n[grid]\n"rules.rounds" = [3, 4, 5]\n')
    real = sweep_mod.run_cell
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(sweep_mod, "run_cell", flaky)
    out = tmp_path / "out"
    code, _, err = run(["sweep", path, "--out", str(out)], capsys)
    assert code == 130 and "kept 2 of 3" in err
    summary = pd.read_csv(out / "summary.csv")
    assert sorted(summary["cell"].unique()) == [0, 1]
    assert (out / "index.html").exists()


def test_play_prints_a_trace(capsys):
    code, out, _ = run(["play", "art_deco", "--seed", "4", "--players", "3"], capsys)
    assert code == 0 and "Round 1: active card" in out and "Game over" in out


def test_list_shows_games_policies_and_options(capsys):
    code, out, _ = run(["list"], capsys)
    assert code == 0
    for word in ("art_deco", "eligibility", "open_min_bid", "card sets"):
        assert word in out


@pytest.mark.parametrize("field, what", [("bonus", "not a sweepable"), ("name", "not a sweepable"),
                                         ("banner", "not a sweepable"), ("starter", "not a sweepable"),
                                         ("colour", "unknown")])
def test_cards_sweep_of_a_field_that_cannot_be_swept_is_one_line_before_any_game(tmp_path, capsys, monkeypatch,
                                                                                 field, what):
    from boardsim.analysis import balance

    def no_games(*args, **kwargs):
        raise AssertionError("games were played before --sweep was checked")

    monkeypatch.setattr(balance, "card_strength", no_games)
    monkeypatch.setattr(balance, "value_sweep", no_games)
    out = tmp_path / "cards"
    code, _, err = run(["cards", "fliptoons", "--sweep", field, "--out", str(out)], capsys)
    assert code == 2
    # only the integer fields an edit can change are offered (starter is an integer but not editable)
    assert err == (f"error: --sweep: {what} card field {field!r}; allowed: rank, copies, solo_copies, fame, "
                   "bonus_fame, bonus_param, dismiss_cost\n")
    assert not out.exists()


def test_policies_flag_takes_parameters_in_the_label_syntax(capsys):
    from boardsim.cli import parse_policies
    from boardsim.games.base import Seat

    seats = parse_policies('par, multiple(multiple=1.3),priority(order=[Elephant, "Bear"], fallback=random)')
    assert seats == [Seat("par"), Seat("multiple", {"multiple": 1.3}),
                     Seat("priority", {"order": ["Elephant", "Bear"], "fallback": "random"})]
    # a label as printed in a report reads back to the same seat
    assert parse_policies(seats[1].label()) == [seats[1]]
    code, out, _ = run(["play", "art_deco", "--policies", "multiple(multiple=1.3),par", "--players", "2"], capsys)
    assert code == 0 and "2 players" in out
    code, _, err = run(["tournament", "art_deco", "--policies", "multiple(multiple=1.3,par", "--games", "10"], capsys)
    assert code == 2 and err.startswith("error:") and "--policies" in err


def test_title_with_dollars_renders_as_plain_text(tmp_path, capsys):
    path = write(tmp_path, 'game = "art_deco"\ngames = 40\ntitle = "costs $5 vs $x^{$ and \\\\frac"\n')
    code, out, err = run(["sweep", path, "--out", str(tmp_path / "out"), "--quiet"], capsys)
    assert code == 0, err
    assert (tmp_path / "out" / "index.html").exists()


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_sweep_into_another_scenarios_folder_stops_unless_forced(tmp_path, capsys):
    first = write(tmp_path, 'name = "a"\ngame = "art_deco"\ngames = 48\nseed = 1\n[grid]\n"rules.rounds" = [6, 8]\n',
                  "a.toml")
    second = write(tmp_path, 'name = "b"\ngame = "art_deco"\ngames = 48\nseed = 2\n', "b.toml")
    out = tmp_path / "out"
    assert run(["sweep", first, "--out", str(out), "--quiet"], capsys)[0] == 0
    before = snapshot(out)
    code, _, err = run(["sweep", second, "--out", str(out), "--quiet"], capsys)
    assert code == 2 and err.count("\n") == 1 and "another scenario's results ('a')" in err
    assert "--out" in err and "force replaces them" in err
    assert snapshot(out) == before
    # the same scenario again is fine, and leaves nothing of the earlier run's cells behind
    assert run(["sweep", first, "--out", str(out), "--quiet", "--games", "24"], capsys)[0] == 0
    code, _, _ = run(["sweep", second, "--out", str(out), "--quiet", "--force"], capsys)
    assert code == 0
    after = snapshot(out)
    assert json.loads(after["run.json"])["title"] == "b"
    # b has one cell: nothing of a's second cell survives, in the tables or in the saved chunks
    assert set(pd.read_csv(out / "summary.csv")["cell"]) == {0}
    assert not any(name.startswith("chunks/cell-0001") for name in after)


def test_the_closing_line_splits_compile_play_and_report(tmp_path, capsys):
    path = write(tmp_path, 'name = "t"\ngame = "art_deco"\ngames = 48\n')
    out = tmp_path / "out"
    code, stdout, _ = run(["sweep", path, "--out", str(out), "--quiet"], capsys)
    line = stdout.splitlines()[0]
    assert code == 0 and line.startswith("t: 1 cell, 48 games in ") and "compile" in line and "report" in line
    assert "(48 games played," in line
    code, stdout, _ = run(["sweep", path, "--out", str(out), "--quiet"], capsys)
    # a rerun loads every chunk: it plays nothing, and says so
    assert "48 loaded from saved chunks" in stdout and "(0 games played" in stdout


def test_a_closed_stdout_ends_quietly():
    proc = subprocess.run(f"{sys.executable} -m boardsim list | head -1", shell=True, capture_output=True,
                          text=True, timeout=120)
    assert proc.stdout.startswith("art_deco:") and proc.stderr == ""


def test_a_bad_policy_parameter_is_keyed_by_its_full_path(tmp_path, capsys):
    path = write(tmp_path, 'game = "fliptoons"\ngames = 10\n[[seats]]\npolicy = "fame_per_cost"\n'
                           'params = { cost_exponent = 9 }\n')
    code, _, err = run(["sweep", path, "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "seats[0].params.cost_exponent: got 9" in err


def test_a_command_into_a_sweeps_folder_stops_unless_forced_and_owns_it_after(tmp_path, capsys):
    """D2: tournament (like ladder, cards, optimize and patch) refuses a folder holding a sweep's results,
    writes it with --force, and may then rewrite its own folder."""
    scen = write(tmp_path, 'name = "a"\ngame = "art_deco"\ngames = 24\nseed = 1\n', "a.toml")
    out = tmp_path / "out"
    assert run(["sweep", scen, "--out", str(out), "--quiet"], capsys)[0] == 0
    before = snapshot(out)
    tour = ["tournament", "art_deco", "--policies", "par,random", "--games", "10", "--quiet", "--out", str(out)]
    code, _, err = run(tour, capsys)
    assert code == 2 and err.count("\n") == 1 and "another scenario's results ('a')" in err, err
    assert snapshot(out) == before
    assert run([*tour, "--force"], capsys)[0] == 0
    meta = json.loads((out / "run.json").read_text())
    assert meta["run id"] == "tournament art_deco"
    assert not (out / "summary.csv").exists()  # the sweep's report is gone, not mixed in
    assert run(tour, capsys)[0] == 0  # its own folder: no --force needed
    code, _, err = run(["sweep", scen, "--out", str(out), "--quiet"], capsys)
    assert code == 2 and "another run's results" in err, err


@pytest.mark.parametrize("command", ["tournament", "ladder"])
def test_a_full_disk_is_one_line_naming_the_folder_and_the_flag_once(tmp_path, capsys, monkeypatch, command):
    """D6: ENOSPC while a command writes its tables names the folder (the error names no file) and --out once."""
    import errno

    from boardsim import safe_io

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_io, "write_csv", full)
    out = tmp_path / "out"
    argv = {"tournament": ["tournament", "art_deco", "--policies", "par,random", "--games", "10"],
            "ladder": ["ladder", "art_deco", "--policies", "par", "--budgets", "2", "--games", "4"]}[command]
    code, _, err = run([*argv, "--quiet", "--out", str(out)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert err == f"error: {out}: --out: cannot write: No space left on device\n", err


def test_the_last_resort_write_error_names_the_flag_once(capsys, monkeypatch):
    def full(args):
        raise OSError(28, "No space left on device")

    monkeypatch.setitem(cli.main.__globals__, "cmd_list", full)
    code, _, err = run(["list"], capsys)
    assert code == 2 and err == "error: --out: cannot write: No space left on device\n", err


@pytest.mark.parametrize(("argv", "key"), [
    (["tournament", "art_deco", "--policies", "par,mcts(iterations=-1)", "--games", "10"], "--policies[1].iterations"),
    (["tournament", "art_deco", "--policies", "par,random", "--mode", "field", "--field", "multiple(multiple=-1)",
      "--games", "10"], "--field.multiple"),
    (["ladder", "art_deco", "--policies", "par,multiple(multiple=-1)", "--budgets", "2", "--games", "4"],
     "--policies[1].multiple"),
    (["play", "art_deco", "--players", "3", "--policies", "par,mcts(iterations=0)"], "--policies[1].iterations"),
])
def test_a_bad_policy_parameter_names_the_flag_entry_the_user_typed(tmp_path, capsys, argv, key):
    """D7: not seats[1].params.iterations of some match, but the --policies entry (or --field) it came from."""
    out = ["--out", str(tmp_path / "out"), "--quiet"] if argv[0] != "play" else []
    code, _, err = run([*argv, *out], capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"error: {key}: "), err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("no_site", [False, True])
def test_run_from_the_folder_above_a_clone_is_one_clear_line(tmp_path, no_site):
    """``python -m boardsim`` beside a clone named boardsim (installed or not): one error line saying why."""
    from pathlib import Path

    (tmp_path / "boardsim").symlink_to(Path(__file__).resolve().parents[1], target_is_directory=True)
    flags = ["-S"] if no_site else []
    r = subprocess.run([sys.executable, *flags, "-m", "boardsim", "list"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("error: "), r.stderr
    assert "cd boardsim" in r.stderr and "Traceback" not in r.stderr
