"""Per-game random numbers for jitted code.

Every game owns a tiny xoshiro256** generator whose 256-bit state is filled by
splitmix64 from one 64-bit game seed.  The state is a ``uint64[4]`` array that
the game allocates for itself, so games never share a generator and results do
not depend on threads or chunking.

Seeds: the host turns (base seed, grid cell) into a 64-bit *cell key* with
``numpy.random.SeedSequence``; the seed of game ``i`` of that cell is
``game_seed(cell_key, i)``, a splitmix64 hash.  Hashing inside jitted code keeps
seed derivation out of the Python hot path while any single game can still be
replayed from (base seed, cell, game index).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S17 = np.uint64(17)
_S45 = np.uint64(45)
_S11 = np.uint64(11)
_S7 = np.uint64(7)
_S57 = np.uint64(57)
_S19 = np.uint64(19)
_S23 = np.uint64(23)
_ONE = np.uint64(1)
_FIVE = np.uint64(5)
_NINE = np.uint64(9)
_TWO53 = 1.0 / 9007199254740992.0
# the largest base seed: seeds are stored as int64 (chunk files, run.json); SeedSequence takes any of them
MAX_SEED = 2**63 - 1


def cell_key(base_seed: int, cell: int) -> int:
    """64-bit key of one grid cell, derived with numpy's SeedSequence."""
    seq = np.random.SeedSequence(entropy=int(base_seed), spawn_key=(int(cell),))
    return int(seq.generate_state(1, dtype=np.uint64)[0])


@njit(cache=True, nogil=True)
def _mix64(z):
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True)
def game_seed(key, index):
    """Seed of game ``index`` of the cell whose key is ``key``."""
    return _mix64(np.uint64(key) + _GOLDEN * (np.uint64(index) + _ONE))


@njit(cache=True, nogil=True)
def seed_state(seed, state):
    """Fill a uint64[4] xoshiro state from a 64-bit seed with splitmix64."""
    z = np.uint64(seed)
    for i in range(4):
        z = z + _GOLDEN
        state[i] = _mix64(z)


@njit(cache=True, nogil=True)
def new_state(seed):
    state = np.empty(4, dtype=np.uint64)
    seed_state(seed, state)
    return state


@njit(cache=True, nogil=True, inline="always")
def step(s0, s1, s2, s3):
    """``random`` on a generator held in four scalars: the same xoshiro256** step and 53-bit float.

    For kernels that keep the generator in locals rather than the ``uint64[4]`` array (Art Deco's
    ``play_game``): LLVM cannot tell that array apart from a game's other arrays, so it reloaded and
    stored the state around every draw.  Returns (uniform in [0, 1), new state).
    """
    x = s1 * _FIVE
    result = ((x << _S7) | (x >> _S57)) * _NINE
    t = s1 << _S17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _S45) | (s3 >> _S19)
    return float(result >> _S11) * _TWO53, s0, s1, s2, s3


@njit(cache=True, nogil=True)
def next_u64(state):
    """xoshiro256** step."""
    x = state[1] * _FIVE
    result = ((x << _S7) | (x >> _S57)) * _NINE  # rotate left by 7 (written out: a called helper compiled once
    # per literal rotation)
    t = state[1] << _S17
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = (state[3] << _S45) | (state[3] >> _S19)  # rotate left by 45
    return result


@njit(cache=True, nogil=True)
def random(state):
    """Uniform float in [0, 1) with 53 random bits."""
    return float(next_u64(state) >> _S11) * _TWO53


@njit(cache=True, nogil=True)
def below(state, n):
    """Uniform integer in [0, n) for n >= 1 (bias below 2**-40 for n < 2**13)."""
    return int(random(state) * n)


@njit(cache=True, nogil=True)
def shuffle(state, arr, n):
    """Fisher-Yates shuffle of arr[:n] in place."""
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


@njit(cache=True, nogil=True)
def game_seeds(key, start, count):
    """Seeds of games start..start+count-1 of a cell, for the results table."""
    out = np.empty(count, dtype=np.uint64)
    for i in range(count):
        out[i] = game_seed(key, start + i)
    return out
