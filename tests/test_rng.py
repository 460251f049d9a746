import numpy as np

from boardsim import rng


def test_generator_is_deterministic_and_uniform():
    a = rng.new_state(rng.game_seed(np.uint64(rng.cell_key(1, 0)), 0))
    b = rng.new_state(rng.game_seed(np.uint64(rng.cell_key(1, 0)), 0))
    xs = [rng.random(a) for _ in range(20000)]
    assert xs[:50] == [rng.random(b) for _ in range(50)]
    assert 0.0 <= min(xs) and max(xs) < 1.0
    assert abs(np.mean(xs) - 0.5) < 0.01
    counts = np.bincount([rng.below(a, 6) for _ in range(60000)], minlength=6)
    assert counts.min() > 9500 and counts.max() < 10500


def test_seeds_differ_by_cell_and_index():
    k0, k1 = rng.cell_key(7, 0), rng.cell_key(7, 1)
    assert k0 != k1 and rng.cell_key(8, 0) != k0
    seeds = rng.game_seeds(np.uint64(k0), 0, 10000)
    assert len(set(seeds.tolist())) == 10000
    assert seeds[5] == rng.game_seed(np.uint64(k0), 5)


def test_shuffle_is_a_permutation():
    s = rng.new_state(123)
    arr = np.arange(50)
    rng.shuffle(s, arr, 50)
    assert sorted(arr.tolist()) == list(range(50)) and arr.tolist() != list(range(50))
