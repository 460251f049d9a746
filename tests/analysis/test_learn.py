"""analysis/learn.py: rounds, the held-out check that refuses a weaker round, resuming a killed run, the same
model on any worker count and executor, and bad input.  Art Deco with the eligibility heuristic as the teacher:
its games take microseconds, so the checks are about the procedure, not the search."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim import learned
from boardsim.analysis import learn as L
from boardsim.cli import main
from boardsim.errors import BadInput

SMALL = dict(teacher="eligibility", games=24, eval_games=40, seed=3, bootstrap_draws=3, log=None, progress=False)


def _run(tmp_path, name="out", **kw):
    args = {**SMALL, **kw}
    return L.learn("art_deco", players=2, out=tmp_path / name, **args)


def test_learn_writes_the_model_the_report_and_what_the_model_values(tmp_path):
    res = _run(tmp_path, rounds=2, workers=1)
    assert sorted(res.files) == ["learn.md", "model.npz", "rounds.csv", "weights.csv"]
    assert all((res.out_dir / f).exists() for f in res.files)
    assert list(res.rounds["round"]) == [1, 2]
    assert res.rounds["decisions"].gt(0).all()
    # a heuristic teacher is one deterministic function of the view: the model imitates it closely
    assert res.rounds["agreement"].iloc[-1] > 0.9
    assert res.weights[["weight", "low", "high"]].notna().all().all()
    model = learned.load(res.out_dir / "model.npz")
    assert model.game == "art_deco" and model.players == 2
    text = (res.out_dir / "learn.md").read_text()
    assert "What a strong player values" in text and "Correlational" in text


def test_learn_recovers_a_linear_teachers_choices_and_the_sign_of_its_preference(tmp_path):
    """par bids and buys while the price is at most the card's value: a linear rule in the candidates' gain
    (value - price).  learn imitates it on held-out games (agreement >= 95%) and weighs gain positively."""
    res = _run(tmp_path, rounds=1, teacher="par", games=40)
    assert res.rounds["agreement"].iloc[0] >= 0.95
    gain = res.weights.set_index("term").loc["gain"]
    assert gain["weight"] > 0 and gain["low"] > 0


def test_a_weaker_round_is_not_kept(tmp_path, monkeypatch):
    real_fit = L.FT.fit

    def broken_second_round(data, base, penalty, **kw):
        model = real_fit(data, base, penalty, **kw)
        if base.info["round"] == 2:  # a deliberately broken round: it prefers what the teacher avoids
            return model.with_weights(-model.weights())
        return model

    monkeypatch.setattr(L.FT, "fit", broken_second_round)
    res = _run(tmp_path, rounds=2, workers=1)
    assert list(res.rounds["kept"]) == [True, False]
    assert res.rounds["share"].iloc[1] < 0.5
    first = learned.load(tmp_path / "out" / "work" / "round-1.npz")
    np.testing.assert_array_equal(res.model.weights(), first.weights())


def test_same_seed_same_model_on_any_worker_count_and_executor(tmp_path):
    # the package's executors (processes, a local Dask cluster) record the same games as threads here
    one = _run(tmp_path, "one", rounds=1, workers=1, bootstrap_draws=0)
    two = _run(tmp_path, "two", rounds=1, workers=2, bootstrap_draws=0)
    procs = _run(tmp_path, "procs", rounds=1, workers=2, executor="processes", bootstrap_draws=0)
    dask = _run(tmp_path, "dask", rounds=1, workers=2, executor="dask", bootstrap_draws=0)
    np.testing.assert_array_equal(one.model.weights(), two.model.weights())
    np.testing.assert_array_equal(one.model.weights(), procs.model.weights())
    np.testing.assert_array_equal(one.model.weights(), dask.model.weights())


def test_a_killed_run_resumes_to_the_same_model(tmp_path, monkeypatch):
    clean = _run(tmp_path, "clean", rounds=2, workers=1)
    real = L._record_chunk
    calls = []

    def dies_on_the_third_chunk(*args):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(L, "_record_chunk", dies_on_the_third_chunk)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, "killed", rounds=2, workers=1)
    assert len(list((tmp_path / "killed" / "work" / "round-1").glob("chunk-*.npz"))) == 2
    monkeypatch.setattr(L, "_record_chunk", real)
    resumed = _run(tmp_path, "killed", rounds=2, workers=1)
    np.testing.assert_array_equal(clean.model.weights(), resumed.model.weights())
    # other settings in the same folder are refused rather than mixed in
    with pytest.raises(BadInput) as e:
        _run(tmp_path, "killed", rounds=2, workers=1, games=30)
    assert e.value.key == "out"


@pytest.mark.parametrize("argv, key", [
    (["--teacher", "nosuch"], "--teacher"),
    (["--teacher", "learned"], "--teacher"),
    (["--players", "9"], "--players"),
    (["--executor", "dask"], "--executor"),
    (["--rounds", "0"], "--rounds"),
])
def test_bad_flags_are_one_error_line_and_write_nothing(tmp_path, capsys, argv, key):
    out = tmp_path / "o"
    try:
        rc = main(["learn", "art_deco", "--out", str(out), "--quiet", *argv])
    except SystemExit as e:  # argparse's own refusals (a flag's type) exit rather than return
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and key in err[0], err
    assert not out.exists()


def test_bad_model_files_from_the_command_line(tmp_path, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"garbage")
    out = tmp_path / "r"
    for policy, says in ((f"learned(model={bad})", "cannot read model file"),
                         (f"learned(model={tmp_path / 'none.npz'})", "no model file"),
                         ("learned(temperature=-1)", "temperature")):
        code = main(["tournament", "art_deco", "--policies", f"{policy},par", "--games", "10", "--out", str(out)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and err[0].startswith("error:") and says in err[0], err
    assert not out.exists()


def test_the_cli_learns_and_prints_the_answer(tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(["learn", "art_deco", "--players", "2", "--teacher", "eligibility", "--games", "16", "--rounds", "1",
                 "--eval-games", "20", "--out", str(out), "--workers", "1", "--quiet"])
    text = capsys.readouterr().out
    assert code == 0 and "A learned Art Deco player" in text and (out / "model.npz").exists()
