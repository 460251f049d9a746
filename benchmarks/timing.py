"""Timing shared by the per-game benchmark scripts (imported by name: a script's own folder is on sys.path)."""

from __future__ import annotations

import time


def games_per_second(game, prepared, n_games: int, repeats: int = 3) -> tuple[float, float]:
    """Best of ``repeats`` runs of ``game.play``: games per wall-clock second and per CPU second.

    Games per CPU second is the per-core rate even when other processes share the machine.
    """
    best_wall = best_cpu = 0.0
    for r in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        game.play(prepared, 12345 + r, 0, n_games)
        best_wall = max(best_wall, n_games / (time.perf_counter() - t0))
        best_cpu = max(best_cpu, n_games / max(1e-9, time.process_time() - c0))
    return best_wall, best_cpu
