"""The FlipToons ``lookahead`` policy: flat Monte Carlo over the step interface (``step.py``).

Each candidate action (every affordable hire, the best junk dismissal, ending the turn) is played out
``playouts`` times from a copy of the state in which the unseen toon deck is reshuffled, every seat playing
``fame_per_cost``; the candidate with the best mean win share is chosen.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.fliptoons import step
from boardsim.games.fliptoons.decide import (
    _cheap_dismiss,
)
from boardsim.games.fliptoons.engine import (
    _apply,
)
from boardsim.games.fliptoons.policies import LOOKAHEAD_HORIZON, LOOKAHEAD_PLAYOUTS
from boardsim.games.fliptoons.state import (
    A_END,
    END,
    END_HORIZON,
    HORIZON,
    LOGON,
    MAXFAME,
    NP,
    R_GOAL,
    ROUND,
    TN,
    WINNER,
    W,
    _hire_ok,
)
from boardsim.rng import next_u64, seed_state, shuffle


# Inlined into the engine's _play_block (and that into _play_range) at the IR level: as separate functions
# each re-optimised and re-codegened the whole game engine once more (about 3 s of cold compile apiece).
@njit(cache=True, nogil=True, inline='always')
def lookahead_choose(p, S, C, X, U, L, rng, f_round, f_final, f_score):
    """Flat Monte Carlo: N playouts per candidate from a copy where unseen cards are reshuffled."""
    pc, pv, dism, sh, toon, mk = S
    cards, rules, prices, pol, prio, val = C
    S2, O2 = L
    n_play = max(1, int(pol[p, LOOKAHEAD_PLAYOUTS]))
    horizon = int(pol[p, LOOKAHEAD_HORIZON])
    Wd = np.int64(sh[W])
    cands = np.empty(Wd + 2, dtype=np.int64)
    nc = 0
    for s in range(Wd):
        if _hire_ok(p, s, pv, mk, prices):
            cands[nc] = s
            nc += 1
    d = _cheap_dismiss(p, 1e9, 0.0, S, C)
    if d != A_END:
        cands[nc] = d
        nc += 1
    cands[nc] = A_END
    nc += 1
    if nc == 1:
        return A_END
    base = next_u64(rng)
    rng2 = np.empty(4, dtype=np.uint64)
    best = np.int64(A_END)  # typed from the start: a literal would compile _apply once more for it
    bv = -1.0
    for c in range(nc):
        tot = 0.0
        for j in range(n_play):
            step.copy_world(S, S2)
            s2 = S2.shared
            s2[LOGON] = 0
            s2[HORIZON] = sh[ROUND] + horizon if horizon > 0 else 0
            seed_state(base + np.uint64(j), rng2)  # common random numbers across candidates
            shuffle(rng2, S2.toon, np.int64(s2[TN]))  # the toon deck order is unseen
            _apply(p, cands[c], S2, C, O2, rng2)
            step.advance(S2, C, O2, X, U, rng2, np.int64(0), f_round, f_final, f_score)
            pv2 = S2.seat
            if s2[END] == END_HORIZON and s2[NP] == 1:
                tot += 0.5 * min(1.0, pv2[0, MAXFAME] / max(1.0, rules[R_GOAL]))
            else:
                nw = 0
                for q in range(s2[NP]):
                    nw += pv2[q, WINNER]
                if pv2[p, WINNER] and nw > 0:
                    tot += 1.0 / nw
        mean = tot / n_play
        if mean > bv:
            bv = mean
            best = cands[c]
    return best
