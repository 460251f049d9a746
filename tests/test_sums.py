"""sums.add_chunk: the compiled chunk sums equal plain NumPy sums, on random chunks of every shape a cell makes."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim.runner import WIN_UNITS, Aggregate


def _chunk(rng: np.random.Generator, A: int, count: int, P: int) -> dict[str, np.ndarray]:
    n = A * count
    win = np.zeros((n, P))
    winners = rng.integers(0, P + 1, size=n)  # P: nobody wins
    for r in range(n):
        k = rng.integers(1, P + 1)
        if winners[r] < P:
            chosen = rng.choice(P, size=k, replace=False)
            win[r, chosen] = 1.0 / k
    arrangements = np.array([rng.permutation(P) for _ in range(A)])
    return {
        "win": win,
        "score": rng.integers(-5, 60, size=(n, P)),
        "position": np.repeat(arrangements, count, axis=0),
        "first_player": rng.integers(0, P, size=n),
        "rounds": rng.integers(3, 12, size=n),
        "end": rng.integers(0, 2, size=n),
        "counters": rng.integers(0, 9, size=(n, P, 2)),
    }


def _reference(out: dict[str, np.ndarray], A: int, groups: tuple[int, ...]) -> dict[str, object]:
    """The sums written out one by one, the way Aggregate's docstring defines them."""
    units = np.rint(out["win"] * WIN_UNITS).astype(np.int64)
    score = out["score"]
    n, P = score.shape
    count = n // A
    G = max(groups) + 1
    gm = np.zeros((P, G), dtype=np.int64)
    gm[np.arange(P), groups] = 1
    Y = units.reshape(A, count, P).sum(axis=0)
    S = score.reshape(A, count, P).sum(axis=0)
    by_pos = np.zeros(P, dtype=np.int64)
    for r in range(n):
        for j in range(P):
            by_pos[(out["position"][r, j] - out["first_player"][r]) % P] += units[r, j]
    per_game_group = units.reshape(A, count, P) @ gm
    hist: dict[int, np.ndarray] = {}
    for j in range(P):
        for v in score[:, j]:
            hist.setdefault(int(v), np.zeros(P, dtype=np.int64))[j] += 1
    rounds_hist: dict[int, int] = {}
    for v in out["rounds"]:
        rounds_hist[int(v)] = rounds_hist.get(int(v), 0) + 1
    return {
        "wins": units.sum(axis=0), "wins_by_position": by_pos, "score_sum": score.sum(axis=0),
        "score_sq": (score * score).sum(axis=0), "deal_win_sq": (Y * Y).sum(axis=0),
        "deal_score_sq": (S * S).sum(axis=0), "group_win_sq": ((Y @ gm) ** 2).sum(axis=0),
        "group_score_sq": ((S @ gm) ** 2).sum(axis=0), "arr_wins": units.reshape(A, count, P).sum(axis=1),
        "arr_group_win_sq": (per_game_group**2).sum(axis=1), "end_counts": np.bincount(out["end"], minlength=2),
        "counter_sum": out["counters"].sum(axis=0), "no_winner": int((units.sum(axis=1) == 0).sum()),
        "rounds_sum": int(out["rounds"].sum()), "score_hist": hist, "rounds_hist": rounds_hist,
        "games": n, "deals": count,
    }


@pytest.mark.parametrize(("A", "P", "groups"), [(1, 2, ()), (2, 2, (0, 0)), (6, 3, (0, 1, 1)), (24, 4, (0, 1, 2, 0)),
                                                 (4, 4, ())])
def test_chunk_sums_equal_plain_numpy(A: int, P: int, groups: tuple[int, ...]) -> None:
    rng = np.random.default_rng(A * 10 + P)
    agg = Aggregate(P, ("a", "b"), 2, n_arr=A, groups=groups)
    chunks = [_chunk(rng, A, count, P) for count in (1, 17, 40)]
    for out in chunks:
        agg.add(out)
    whole = {k: np.concatenate([c[k].reshape(A, -1, *c[k].shape[1:]) for c in chunks], axis=1).reshape(
        -1, *chunks[0][k].shape[1:]) for k in chunks[0]}  # the three chunks as one, still arrangement-major
    ref = _reference(whole, A, agg.groups)
    for name, want in ref.items():
        got = getattr(agg, name)
        if isinstance(want, dict):
            assert set(got) == set(want), name
            for v in want:
                assert np.array_equal(got[v], want[v]), (name, v)
        else:
            assert np.array_equal(got, want), name


def test_chunk_of_no_games_changes_nothing_and_odd_chunks_are_refused() -> None:
    agg = Aggregate(2, ("a", "b"), 2, n_arr=2)
    empty = {k: v[:0] for k, v in _chunk(np.random.default_rng(0), 2, 1, 2).items()}
    agg.add(empty)
    assert agg.games == 0 and agg.deals == 0 and not agg.score_hist
    odd = {k: v[:3] for k, v in _chunk(np.random.default_rng(0), 2, 2, 2).items()}
    with pytest.raises(ValueError, match="whole deals"):
        agg.add(odd)
