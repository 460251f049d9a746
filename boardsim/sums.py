"""A chunk's streaming sums in one compiled pass (``runner.Aggregate.add``).

Adding a chunk up with NumPy took a dozen passes over its arrays and cost about a third of an Art Deco game
(about 0.5 us of a 1.4 us game): a sweep then ran well below the engine's speed.  One jitted loop over the
chunk reads each game's row once.  Every sum is a whole number (win shares in ``WIN_UNITS``), so the result
is exactly the NumPy one whatever the order of the additions.  ``nogil``: the sums run on one thread
while the engine plays the next call on another (``executors.chunk_result``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def add_chunk(win, score, position, first_player, rounds, end, n_arr, groups, win_units, score_lo, rounds_lo,
              wins, wins_by_position, score_sum, score_sq, end_counts, deal_win_sq, deal_score_sq, group_win_sq,
              group_score_sq, arr_wins, arr_group_win_sq, score_counts, rounds_counts):
    """Add a chunk (rows in arrangement-major blocks: row ``k * count + i`` is deal ``i`` in arrangement
    ``k``) into the sums in place; returns (games with no winner, rounds summed).

    ``score_counts[s - score_lo, j]`` counts slot ``j``'s score ``s``; ``rounds_counts[r - rounds_lo]``
    the games of ``r`` rounds.  Turn order is counted from each game's first player.
    """
    n, P = score.shape
    count = n // n_arr
    G = group_win_sq.shape[0]
    y = np.zeros(P, dtype=np.int64)  # one deal's win units per slot, over its arrangements
    ys = np.zeros(P, dtype=np.int64)  # ... and scores
    gy = np.zeros(G, dtype=np.int64)
    gys = np.zeros(G, dtype=np.int64)
    ga = np.zeros(G, dtype=np.int64)  # one game's win units per policy
    no_winner = 0
    rounds_sum = 0
    for i in range(count):
        y[:] = 0
        ys[:] = 0
        for k in range(n_arr):
            r = k * count + i
            ga[:] = 0
            total = 0
            for j in range(P):
                u = np.int64(np.rint(win[r, j] * win_units))
                s = score[r, j]
                total += u
                wins[j] += u
                y[j] += u
                ys[j] += s
                ga[groups[j]] += u
                arr_wins[k, j] += u
                score_sum[j] += s
                score_sq[j] += s * s
                wins_by_position[(position[r, j] - first_player[r]) % P] += u
                score_counts[s - score_lo, j] += 1
            for g in range(G):
                arr_group_win_sq[k, g] += ga[g] * ga[g]
            if total == 0:
                no_winner += 1
            rounds_sum += rounds[r]
            rounds_counts[rounds[r] - rounds_lo] += 1
            if 0 <= end[r] < end_counts.shape[0]:  # as bincount()[:n_end]: an unknown reason is not counted
                end_counts[end[r]] += 1
        gy[:] = 0
        gys[:] = 0
        for j in range(P):
            deal_win_sq[j] += y[j] * y[j]
            deal_score_sq[j] += ys[j] * ys[j]
            gy[groups[j]] += y[j]
            gys[groups[j]] += ys[j]
        for g in range(G):
            group_win_sq[g] += gy[g] * gy[g]
            group_score_sq[g] += gys[g] * gys[g]
    return no_winner, rounds_sum


@njit(cache=True, nogil=True)
def column_sums(x):
    """Sums over the rows of a C-contiguous int64 matrix, in one pass (rows are games, columns seats,
    or seats x counters flattened): about 3x faster than ``einsum`` on a chunk's counter block."""
    out = np.zeros(x.shape[1], dtype=np.int64)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[j] += x[i, j]
    return out
