"""A FlipToons heuristic of your own in about ten lines, ranked in a tournament.

Run:  python examples/custom_policy.py [games per match]

``fame_now`` hires by fame per cost early (as ``fame_per_cost`` does) and switches to the largest fame
gain from round ``$late`` on, never pays to dismiss, and passes when nothing gains.  The candidate columns
and features it reads are listed in docs/rules/fliptoons.md, "Decision view".
"""

from __future__ import annotations

import sys

from numba import njit

import boardsim

ROUND = 0  # features[0]: the round being played
KIND, GAIN, GAIN_PER_COST = 0, 4, 5  # candidate columns; kind 0 hire, 1 dismiss, 2 pass


@njit  # no cache=True in a script run as __main__: numba would key its cache to that name
def fame_now(features, candidates, params, scores):
    late = features[ROUND] >= params[0]  # params[0] is $late (the seat's only number)
    for i in range(candidates.shape[0]):
        kind = candidates[i, KIND]
        if kind == 2:
            scores[i] = 0.0  # passing scores 0: a hire must gain to be taken
        elif kind == 1:
            scores[i] = -1.0  # never pay to dismiss
        else:
            scores[i] = candidates[i, GAIN] if late else candidates[i, GAIN_PER_COST]


def main(games: int = 20_000) -> None:
    mine = boardsim.custom_policy(fame_now, name="fame_now", late=9)
    result = boardsim.tournament("fliptoons", [mine, "fame_per_cost", "priority", "highest_rank"], players=2,
                                 games=games, seed=7, progress=False)
    print(f"FlipToons, 2 players, every pair in both seat orders, {games:,} games per match\n")
    print(result.ratings.to_string(index=False))
    print()
    print(result.matrix().round(3).to_string())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
