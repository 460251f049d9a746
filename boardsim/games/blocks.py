"""Block scheduling shared by every game's batch kernels.

A batch kernel plays games ``0..n-1`` of a call in blocks of ``block`` games: one ``prange`` iteration per block,
each allocating its working arrays once and reusing them for every game in it.  Each game is seeded from its own
index, so the block size changes only speed, never results; a game picks it by its scratch cost (large scratch:
larger blocks) and by load balance (a search game is slow: smaller blocks).

Both are ``inline="always"``: numba inlines their IR into each kernel instead of compiling and linking two more
functions, which cost about 0.1 CPU-s of a cold compile per kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def block_count(n: int, block: int) -> int:
    """How many blocks of at most ``block`` games hold ``n`` games."""
    return (n + block - 1) // block


@njit(cache=True, nogil=True, inline="always")
def block_range(b: int, n: int, block: int) -> tuple[int, int]:
    """The games ``lo..hi-1`` of block ``b`` of ``n`` games."""
    lo = np.int64(b) * block
    return lo, min(np.int64(n), lo + block)
