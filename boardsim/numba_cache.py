"""Where Numba keeps boardsim's compiled machine code: a folder named after a hash of the jitted sources.

Numba's ``cache=True`` checks only the timestamp of the file that defines a
function.  A compiled engine also holds the code of every helper it calls from
other modules (``search.py`` inside ``policies.search``, constants from
``cards.py``), so after an edit or a ``git pull`` that changes only a helper
module, Numba would load the old engine from its cache and give old results.
Naming the cache folder after the contents of every source file that compiled
code can read makes any such change start a fresh cache instead.

Runs when ``boardsim`` is imported, before any jitted module is: Numba picks a
function's cache folder when its decorator runs.  ``NUMBA_CACHE_DIR``, if set,
is the parent of the folder; otherwise it is the package's ``__pycache__``
(or ``~/.cache/boardsim`` where the package is read-only).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numba

PACKAGE = Path(__file__).resolve().parent
PREFIX = "numba-"
_LOADED: dict[str, str] = {}  # the source hash configure() found, i.e. of the code this process compiles


def loaded_source_hash() -> str:
    """The source hash of the jitted code this process loaded (taken when ``configure`` ran at import, so
    an edit made while it runs does not change it); chunk files record it."""
    if "hash" not in _LOADED:
        _LOADED["hash"] = source_hash()
    return _LOADED["hash"]


def jitted_sources(package: Path = PACKAGE) -> list[Path]:
    """Every file compiled code may read: all of ``games/`` (sources and card data, which could be baked
    into compiled code as constants) and each other module that jits code."""
    files = {p for p in package.glob("games/**/*") if p.is_file() and "__pycache__" not in p.parts}
    for path in package.glob("*.py"):
        if "njit" in path.read_text(encoding="utf-8") and path.name != Path(__file__).name:
            files.add(path)
    return sorted(files)


def source_hash(package: Path = PACKAGE) -> str:
    digest = hashlib.sha256()
    for path in jitted_sources(package):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def cache_folder(package: Path = PACKAGE) -> tuple[Path, bool]:
    """The cache folder for these sources, and whether it lies in boardsim's own default place."""
    name = PREFIX + source_hash(package)
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return Path(given) / name, False
    default = package / "__pycache__"
    if not _writable(default):
        default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "boardsim"
    return default / name, True


def configure(package: Path = PACKAGE) -> Path:
    """Point Numba's cache at this source version's folder; drop older versions' folders in the default place."""
    folder, own = cache_folder(package)
    if package == PACKAGE:
        _LOADED["hash"] = folder.name[len(PREFIX):]
    numba.config.CACHE_DIR = str(folder)
    if own and not folder.exists():
        # a new source version: the machine code of the older ones can never be loaded again
        for old in folder.parent.glob(PREFIX + "*"):
            shutil.rmtree(old, ignore_errors=True)
    return folder
