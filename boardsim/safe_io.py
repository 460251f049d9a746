"""Writing inside an output folder without following links, and one lock per folder.

Every file a run writes goes to a temporary file of this process in the same folder (``<name>.tmp<pid>``)
and is renamed over the final name with ``os.replace``.  A rename replaces a symbolic link at the
destination by the new file and never writes through it, so a link planted in the output folder cannot
redirect a write to a file outside; a reader never sees a half-written file; and a write that fails (a
full or read-only disk) leaves the old file and no temporary one.

``FolderLock`` is an ``fcntl`` lock on ``<folder>/.boardsim.lock``: one sweep writes into a folder
at a time, and a second one stops with one line naming the folder and the other process.
"""

from __future__ import annotations

import errno
import fcntl
import io
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO

from boardsim.errors import BadParameter

LOCK_NAME = ".boardsim.lock"
_TMP = re.compile(r"^(?P<name>.+)\.tmp(?P<pid>\d+)$")


def temp_name(path: Path) -> Path:
    """This process's temporary file for ``path``."""
    return path.with_name(f"{path.name}.tmp{os.getpid()}")


def write_with(path: str | Path, fill: Callable[[IO[bytes]], None], sync: bool = False) -> None:
    """Write ``path`` atomically: ``fill`` writes the bytes into a temporary file that then replaces it.

    The temporary file is created with ``O_EXCL | O_NOFOLLOW``, so a link of that name is never
    followed either.  ``sync`` also flushes the data to disk before the rename (chunk files, which a
    resumed run trusts).
    """
    path = Path(path)
    tmp = temp_name(path)
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()  # left by an earlier process with this pid; unlink never follows a link
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
            f.flush()
            if sync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def write_bytes(path: str | Path, data: bytes, sync: bool = False) -> None:
    write_with(path, lambda f: f.write(data), sync)


def write_text(path: str | Path, text: str) -> None:
    """UTF-8 text, written atomically.  A file name of bytes that are no UTF-8 (held as lone surrogates)
    quoted in the text is written as ``\\udce9`` escapes: a report names it rather than failing."""
    write_bytes(path, text.encode("utf-8", "backslashreplace"))


def write_csv(frame, path: str | Path) -> None:
    """A DataFrame as CSV (no index), written atomically."""
    write_text(path, frame.to_csv(index=False))


def save_figure(fig, path: str | Path, **kwargs) -> None:
    """A matplotlib figure as PNG, written atomically."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", **kwargs)
    write_bytes(path, buf.getvalue())


def real_dir(path: str | Path) -> Path:
    """``path`` as a real directory: a symbolic link there is removed (its target left alone) and the
    folder created.  A plain file there raises BadInput."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        path.unlink()
        st = None
    if st is not None and not stat.S_ISDIR(st.st_mode):
        raise BadParameter("out", f"{path} is not a folder", str(path))
    if st is None:
        path.mkdir()
    return path


def remove_stale_temps(folder: Path) -> int:
    """Delete temporary files in ``folder`` (not below it) left by this process or by one that no longer
    runs; a link is removed as a link.  Call it only while holding the folder's lock, so that no other
    run can be writing them.  Returns how many went."""
    gone = 0
    for entry in os.scandir(folder):
        m = _TMP.match(entry.name)
        if m is None or entry.is_dir(follow_symlinks=False):
            continue
        pid = int(m.group("pid"))
        if pid == os.getpid() or not _alive(pid):
            try:
                os.unlink(entry.path)
                gone += 1
            except FileNotFoundError:
                pass
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    return True


class FolderLock:
    """An exclusive ``fcntl`` lock on ``<folder>/.boardsim.lock``, held while a run writes the folder.

    Taking it never waits: a folder locked by another process raises BadInput naming the folder and
    that process's pid.  The lock file stays (deleting it would let two runs lock different files).
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.fd: int | None = None

    def __enter__(self) -> FolderLock:
        path = self.folder / LOCK_NAME
        if path.is_symlink():
            path.unlink()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            other = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise BadParameter("out", f"another boardsim run (pid {other}) is writing to this folder; wait for "
                                            "it to finish or choose another folder", str(self.folder)) from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None
