"""Numba's cache folder follows the jitted sources, so an edited helper module never runs stale code."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba

from boardsim import numba_cache

HELPER = "from numba import njit\n\n@njit(cache=True)\ndef helper(x):\n    return x + {n}\n"
CALLER = "from numba import njit\nfrom toy import a\n\n@njit(cache=True)\ndef caller(x):\n    return a.helper(x) * 10\n"
RUN = textwrap.dedent("""
    import sys
    from pathlib import Path
    import numba
    from boardsim.numba_cache import cache_folder
    {setup}
    from toy import b
    print(b.caller(1))
""")


def toy(tmp_path: Path, n: int) -> Path:
    pkg = tmp_path / "toy"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(HELPER.format(n=n))
    (pkg / "b.py").write_text(CALLER)
    return pkg


def run(tmp_path: Path, setup: str) -> int:
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", RUN.format(setup=setup)], env=env, capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    return int(out.stdout.split()[-1])


def test_a_folder_per_source_version_runs_the_edited_helper(tmp_path):
    # Numba 0.68 alone prints 20 again after the edit: it checks only b.py's timestamp (not asserted
    # here, so that a Numba that learns to track callees does not fail the suite)
    setup = "numba.config.CACHE_DIR = str(cache_folder(Path('toy').resolve())[0])"
    pkg = toy(tmp_path, 1)
    first = numba_cache.cache_folder(pkg)[0]
    assert run(tmp_path, setup) == 20
    assert run(tmp_path, setup) == 20  # loaded from the cache
    assert any(first.rglob("*.nbi"))
    toy(tmp_path, 2)
    assert numba_cache.cache_folder(pkg)[0] != first
    assert run(tmp_path, setup) == 30


def test_hash_covers_games_and_jitting_modules_only(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "games" / "g" / "data").mkdir(parents=True)
    (pkg / "games" / "g" / "engine.py").write_text("x = 1\n")
    (pkg / "games" / "g" / "data" / "cards.csv").write_text("a,b\n")
    (pkg / "rng.py").write_text("from numba import njit\n")
    (pkg / "cli.py").write_text("print('no compiled code here')\n")
    names = [p.relative_to(pkg).as_posix() for p in numba_cache.jitted_sources(pkg)]
    assert names == ["games/g/data/cards.csv", "games/g/engine.py", "rng.py"]
    before = numba_cache.source_hash(pkg)
    (pkg / "cli.py").write_text("print('still none')\n")
    assert numba_cache.source_hash(pkg) == before
    (pkg / "games" / "g" / "data" / "cards.csv").write_text("a,b\n1,2\n")
    assert numba_cache.source_hash(pkg) != before


def test_boardsim_sets_the_folder_under_numba_cache_dir(tmp_path):
    code = "import boardsim, numba; print(numba.config.CACHE_DIR)"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    folder = Path(out.stdout.strip())
    assert folder.parent == tmp_path and folder.name == "numba-" + numba_cache.source_hash()


def test_a_new_source_version_drops_older_folders_in_the_default_place_only(tmp_path, monkeypatch):
    pkg = toy(tmp_path, 1)
    old = pkg / "__pycache__" / "numba-0123456789abcdef"
    (old / "sub").mkdir(parents=True)
    (old / "sub" / "f.nbi").write_text("stale")
    keep = pkg / "__pycache__" / "other.pyc"
    keep.write_text("not ours")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)  # restored after the test
    folder = numba_cache.configure(pkg)
    assert numba.config.CACHE_DIR == str(folder) and folder.parent == pkg / "__pycache__"
    assert not old.exists() and keep.exists()
    # under a user's NUMBA_CACHE_DIR nothing is removed: other programs may share it
    shared = tmp_path / "shared"
    (shared / "numba-0123456789abcdef").mkdir(parents=True)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(shared))
    assert numba_cache.configure(pkg).parent == shared
    assert (shared / "numba-0123456789abcdef").exists()
