"""Timing shared by the per-game benchmark scripts (imported by name: a script's own folder is on sys.path)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

# the workplace's machine yardstick (1.000 = the machine of the issues' figures), beside the checkout
YARDSTICK = Path(__file__).resolve().parents[2] / "shared" / "tools" / "yardstick.py"


def games_per_second(game, prepared, n_games: int, repeats: int = 3) -> tuple[float, float]:
    """Best of ``repeats`` runs of ``game.play``: games per wall-clock second and per CPU second.

    Games per CPU second is the per-core rate even when other processes share the machine.  The games
    are played in calls of at most ``game.max_chunk_deals``, as a sweep plays them: one call of 100,000
    FlipToons games would spend about 7% of its time having the kernel zero 200 MB of fresh result
    pages, which a sweep's 5,000-game chunks reuse from the heap instead.
    """
    best_wall = best_cpu = 0.0
    step = max(1, min(n_games, game.max_chunk_deals))
    for r in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        for start in range(0, n_games, step):
            game.play(prepared, 12345 + r, start, min(step, n_games - start))
        best_wall = max(best_wall, n_games / (time.perf_counter() - t0))
        best_cpu = max(best_cpu, n_games / max(1e-9, time.process_time() - c0))
    return best_wall, best_cpu


def cpu_rate(game, prepared, n_games: int, key: int) -> float:
    """Games per CPU second of one batch, in sweep-sized calls (the rate per core on a shared machine)."""
    step = min(n_games, game.max_chunk_deals)
    c0 = time.process_time()
    for start in range(0, n_games, step):
        game.play(prepared, key, start, min(step, n_games - start))
    return n_games / max(1e-9, time.process_time() - c0)


def yardstick() -> str:
    """The yardstick's line, to print beside every speed figure (its error text if it fails)."""
    if not YARDSTICK.exists():
        return "yardstick: not found"
    out = subprocess.run([sys.executable, str(YARDSTICK)], capture_output=True, text=True)
    return out.stdout.strip() or out.stderr.strip()
