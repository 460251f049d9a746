"""games/base.py helpers: pointer batch kernels, compiled once, also run as plain Python."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit, types

from boardsim.games import get
from boardsim.games.base import Seat, pointer_kernel

# Two games of each engine and a trace, as JSON: run here (jitted) and interpreted.
SCRIPT = """
import json, warnings
from boardsim.games import get
from boardsim.games.base import Seat
warnings.simplefilter("ignore")  # interpreted uint64 generator arithmetic wraps, as it does when jitted
out = {}
for name in ("art_deco", "fliptoons", "wagons"):
    g = get(name)
    prep = g.prepare(g.default_players, [Seat(g.default_policy)] * g.default_players, {}, g.card_table())
    r = g.play(prep, 11, 3, 2)
    out[name] = [r["score"].tolist(), r["win"].tolist(), g.trace(prep, 11, 4)]
print(json.dumps(out))
"""


def test_pointer_kernels_run_interpreted_and_match_the_jitted_games():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    interpreted = json.loads(done.stdout)
    for name in ("art_deco", "fliptoons", "wagons"):
        g = get(name)
        prep = g.prepare(g.default_players, [Seat(g.default_policy)] * g.default_players, {}, g.card_table())
        r = g.play(prep, 11, 3, 2)
        assert interpreted[name] == [r["score"].tolist(), r["win"].tolist(), g.trace(prep, 11, 4)]


ENGINE = types.int64(types.int64, types.float64[::1])
KERNEL = types.void(types.FunctionType(ENGINE), types.float64[::1])


@njit
def _engine(i, out):
    out[i] = 2.0 * i
    return 0


def test_pointer_kernel_compiles_one_signature_and_reraises_compile_errors():
    @njit
    def kernel(engine, out):
        for i in range(out.shape[0]):
            engine(np.int64(i), out)

    k = pointer_kernel(kernel, _engine, KERNEL, ENGINE)
    out = np.zeros(3)
    k(_engine, out)
    assert out.tolist() == [0.0, 2.0, 4.0] and len(k.signatures) == 1
    assert pointer_kernel(kernel, _engine, KERNEL, ENGINE) is k and len(k.signatures) == 1

    @njit
    def wrong(engine, out):
        engine(out)  # one argument short: the compile, run in its own thread, fails here

    with pytest.raises(ValueError, match="mismatch of arguments number"):
        pointer_kernel(wrong, _engine, KERNEL, ENGINE)
