"""``meta`` (analysis/jobs.meta_job, boardsim.meta): a round robin's folder keeps its per-deal comparisons and
metagame tables; ``meta`` reads them back, the report opens with the metagame; bad folders and flags get one
``error:`` line, exit 2, and nothing written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boardsim
from boardsim import cli
from boardsim.analysis.jobs import tournament_job
from boardsim.tournaments import PER_DEAL


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("meta") / "t"
    tournament_job("art_deco", ["par", "eligibility", "multiple"], games=300, seed=4, out=out, progress=False)
    return out


def test_a_round_robin_writes_its_metagame_and_the_report_opens_with_it(folder):
    for name in (PER_DEAL, "meta_shares.csv", "meta_split.csv", "meta_replicator.csv", "metagame.png"):
        assert (folder / name).is_file(), name
    shares = pd.read_csv(folder / "meta_shares.csv")
    assert list(shares["policy"]) == ["par", "eligibility", "multiple"]
    assert shares["nash"].sum() == pytest.approx(1.0)
    html = (folder / "index.html").read_text()
    assert "Metagame at 2 players: the Nash equilibrium of the head-to-head table mixes" in html
    with np.load(folder / PER_DEAL) as z:
        assert z["per_deal"].shape == (150, 3, 3)  # 300 games a match: 150 deals x 2 seatings
        assert list(z["names"]) == ["par", "eligibility", "multiple"]


def test_meta_reads_the_folder_back_and_equals_the_api(folder, capsys):
    before = pd.read_csv(folder / "meta_shares.csv")
    assert cli.main(["meta", str(folder)]) == 0
    assert "transitive share" in capsys.readouterr().out
    pd.testing.assert_frame_equal(pd.read_csv(folder / "meta_shares.csv"), before)  # same seed, same draws
    api = boardsim.meta(str(folder))
    assert np.allclose(api.shares["nash"], before["nash"])
    result = boardsim.tournament("art_deco", ["par", "eligibility", "multiple"], games=300, seed=4)
    assert np.allclose(boardsim.meta(result).shares["nash"], before["nash"])  # from memory: the same tables
    assert cli.main(["meta", str(folder), "--draws", "20", "--seed", "9"]) == 0
    assert int(pd.read_csv(folder / "meta_split.csv")["draws"].iloc[0]) == 20


def test_bad_meta_arguments_name_the_parameter(folder):
    from boardsim.errors import BadInput

    for kw, key in (({"seed": -1}, "seed"), ({"draws": 5}, "draws"), ({"draws": True}, "draws")):
        with pytest.raises(BadInput) as e:
            boardsim.meta(str(folder), **kw)
        assert e.value.key == key
    with pytest.raises(BadInput) as e:
        boardsim.meta(object())
    assert e.value.key == "source"


def test_a_field_tournament_keeps_no_comparisons(tmp_path):
    out = tmp_path / "f"
    tournament_job("art_deco", ["par", "multiple"], games=100, mode="field", field="eligibility", out=out,
                   progress=False)
    assert not (out / PER_DEAL).exists() and not (out / "meta_shares.csv").exists()
    assert cli.main(["meta", str(out)]) == 2


def _snapshot(path):
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}


@pytest.mark.parametrize("case", ["missing folder", "no file", "corrupt", "wrong shape", "draws", "never met"])
def test_bad_meta_input_is_one_error_line(case, folder, tmp_path, capsys):
    d = tmp_path / "bad"
    d.mkdir()
    argv = ["meta", str(d)]
    if case == "missing folder":
        argv = ["meta", str(tmp_path / "nowhere")]
    elif case == "corrupt":
        (d / PER_DEAL).write_bytes(b"not a zip")
    elif case == "wrong shape":
        np.savez(d / PER_DEAL, per_deal=np.ones((4, 2, 3)), names=np.array(["a", "b"]), seed=np.int64(0))
    elif case == "never met":
        np.savez(d / PER_DEAL, per_deal=np.zeros((4, 2, 2)), names=np.array(["a", "b"]), seed=np.int64(0))
    elif case == "draws":
        argv = ["meta", str(folder), "--draws", "3"]
    before = _snapshot(folder), _snapshot(d)
    try:
        status = cli.main(argv)
    except SystemExit as e:  # a flag argparse refuses
        status = e.code
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:"), err
    assert {"missing folder": "folder", "no file": "tournament_per_deal.npz", "corrupt": "per_deal",
            "wrong shape": "shape", "draws": "--draws", "never met": "never met"}[case] in err[0]
    assert (_snapshot(folder), _snapshot(d)) == before
