"""games/base.py helpers: the pointer batch kernels also run as plain Python (NUMBA_DISABLE_JIT=1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from boardsim.games import get
from boardsim.games.base import Seat

# Two games of each pointer-kernel engine and a trace, as JSON: run here (jitted) and interpreted.
SCRIPT = """
import json, warnings
from boardsim.games import get
from boardsim.games.base import Seat
warnings.simplefilter("ignore")  # interpreted uint64 generator arithmetic wraps, as it does when jitted
out = {}
for name in ("fliptoons", "wagons"):
    g = get(name)
    prep = g.prepare(2, [Seat(g.default_policy)] * 2, {}, g.card_table())
    r = g.play(prep, 11, 3, 2)
    out[name] = [r["score"].tolist(), r["win"].tolist(), g.trace(prep, 11, 4)]
print(json.dumps(out))
"""


def test_pointer_kernels_run_interpreted_and_match_the_jitted_games():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    interpreted = json.loads(done.stdout)
    for name in ("fliptoons", "wagons"):
        g = get(name)
        prep = g.prepare(2, [Seat(g.default_policy)] * 2, {}, g.card_table())
        r = g.play(prep, 11, 3, 2)
        assert interpreted[name] == [r["score"].tolist(), r["win"].tolist(), g.trace(prep, 11, 4)]
