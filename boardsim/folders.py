"""A run's output folder: checked before anything is written (a path, not a file; writable; not another
run's results unless forced), made, cleared of an earlier report, and one error line when a write fails.

Every command that writes a folder (sweep, tournament, ladder, cards, patch, learn) uses these, so a
rejected run creates, deletes and overwrites nothing, whichever command it was.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from boardsim import safe_io
from boardsim.errors import BadInput, BadParameter

# what a run writes at the folder's top
REPORT_FILES = ("*.csv", "*.png", "*.npz", "index.html", "run.json", "replay-*.html")


def check_folder_owner(out_dir: Path, owner_id: str, force: bool) -> None:
    """BadParameter ``out`` when the folder holds results of another scenario or command (or of unknown origin),
    unless ``force``; a rerun of the same scenario, or of the same command on the same game, passes."""
    if force or not out_dir.is_dir():
        return
    def written(p: Path) -> bool:  # a file a run wrote; a link is never read (writes replace it)
        return p.is_file() and not p.is_symlink()

    meta_path = out_dir / "run.json"
    found, title, meta_kind = None, "?", "scenario id"
    if written(meta_path):
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            meta_kind = "run id" if "run id" in meta else "scenario id"
            found, title = meta.get(meta_kind), meta.get("title", "?")
        except (OSError, ValueError, AttributeError, TypeError):  # unreadable: not this run's
            pass
        if found == owner_id:
            return
    elif not any(written(p) for pattern in REPORT_FILES for p in out_dir.glob(pattern)):
        return  # an empty folder, or only chunks (their digests guard them)
    kind = "scenario's" if meta_kind == "scenario id" else "run's"
    what = f"another {kind} results ({title!r})" if found else "results of another run"
    raise BadParameter("out", f"holds {what}; force replaces them, or choose another folder", str(out_dir))


def clear_report(out_dir: Path) -> None:
    """Remove the report files an earlier run left at the top of ``out_dir``, so the new report shows only
    this run.  Links are removed as links, never followed.  (Saved chunks are the ChunkStore's.)"""
    for pattern in REPORT_FILES:
        for p in out_dir.glob(pattern):
            if p.is_symlink() or p.is_file():
                p.unlink()


def output_folder(out: str | Path | None, default: Path) -> Path:
    """``out`` (or ``default``) checked without touching anything: BadParameter ``out`` for an empty path,
    a NUL, a file or a path under a file."""
    if out is None:
        path = default
    else:
        text = str(out)
        if not text.strip() or "\0" in text:
            raise BadParameter("out", f"got {text!r}; allowed: a folder path (not empty, no NUL)")
        path = Path(text)
    for above in (path, *path.parents):
        if above.exists() and not above.is_dir():
            where = "is a file" if above == path else f"is under {above}, a file"
            raise BadParameter("out", f"{where}; allowed: a folder", str(path))
    return path


# names a run writes in its folder; a folder standing in one's place would stop the run halfway
_WRITTEN = ("*.csv", "*.png", "index.html", "run.json", safe_io.LOCK_NAME, "chunks/cell-*/cell.json",
            "chunks/cell-*/deals-*.npz")


def check_writable(out_dir: Path) -> None:
    """BadInput before anything is written when the run could not write its files into ``out_dir``."""
    if not out_dir.exists():
        above = next((p for p in out_dir.parents if p.exists()), Path("."))
        if not os.access(above, os.W_OK | os.X_OK):
            raise BadParameter("out", f"cannot create the folder: {above} is not writable", str(out_dir))
        return
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise BadParameter("out", "the folder is not writable", str(out_dir))
    for pattern in _WRITTEN:
        for p in out_dir.glob(pattern):
            if p.is_dir() and not p.is_symlink():
                raise BadParameter("out", f"{p.relative_to(out_dir)} is a folder where the run writes a file; "
                                        "remove it", str(p))


def make_folder(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)


def write_error(e: OSError, out_dir: Path) -> BadInput:
    """One line for a write that failed: the file, and why."""
    where = e.filename if e.filename else out_dir
    return BadParameter("out", f"cannot write: {e.strerror or e}", str(where))


def claim(out: str | Path | None, default: str | Path, owner: str, force: bool = False) -> Path:
    """The folder a command will write, checked before it plays a game: a path that is no file, writable, and
    not holding another run's results (``run.json``'s run id differs from ``owner``) unless ``force``."""
    path = output_folder(out, Path(default))
    check_folder_owner(path, owner, force)
    check_writable(path)
    return path


@contextmanager
def writing(out_dir: Path) -> Iterator[Path]:
    """Make the folder and hold its lock while a command writes it (a second run into the same folder is
    refused, not interleaved), after removing the report files an earlier run left at its top.  A write that
    fails (a full disk) is one BadParameter ``out`` naming the file, or the folder where the error names none."""
    try:
        make_folder(out_dir)
    except OSError as e:
        raise BadParameter("out", f"cannot create the folder: {e.strerror or e}", str(out_dir)) from None
    with safe_io.FolderLock(out_dir):
        try:
            clear_report(out_dir)
            yield out_dir
        except OSError as e:  # a full or read-only disk: one line naming the file (or the folder) once
            raise write_error(e, out_dir) from None
