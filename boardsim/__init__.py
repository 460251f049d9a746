"""boardsim: Monte Carlo strategy and balance analysis for three card games.

Public API::

    import boardsim
    df = boardsim.simulate("art_deco", 10_000, ["par", "eligibility"], seed=1)
    result = boardsim.sweep("scenarios/quickstart.toml")
    scenario = boardsim.load_scenario("scenarios/art-deco-policies.toml")
    boardsim.games.names()
    mine = boardsim.custom_policy(my_njit_scorer, weight=1.5)      # docs/policies.md
    boardsim.tournament("fliptoons", [mine, "fame_per_cost", "priority"], games=20_000)
    boardsim.patch("fliptoons", players=[2, 3, 4])                 # docs/patch.md
    boardsim.learn("art_deco", players=2, games=200)              # docs/guide/learned.md
    boardsim.cards("fliptoons", players=[2, 3]).strength          # docs/guide/measure-a-card.md
    boardsim.meta("reports/ladder-wagons").shares                  # docs/guide/metagame.md
    boardsim.feel("wagons", levels=["gain_minus_gift"]).answer()   # docs/guide/feel.md
    boardsim.replay("art_deco", ["mcts", "eligibility"], pick="upset")  # docs/guide/replay.md
"""

from __future__ import annotations

# before any jitted module is imported: Numba picks each function's cache folder at decoration time
from boardsim import numba_cache  # noqa: E402
from boardsim.version import __version__

numba_cache.configure()

from boardsim import games  # noqa: E402
from boardsim.custom import custom_policy, rules_policy  # noqa: E402
from boardsim.errors import BadInput  # noqa: E402
from boardsim.runner import simulate  # noqa: E402

__all__ = ["BadInput", "cards", "custom_policy", "feel", "games", "ladder", "learn", "load_scenario", "meta",
           "optimize", "patch",
           "replay", "rules_policy", "simulate",
           "sweep", "tournament", "__version__"]


def __getattr__(name: str):
    # sweep and load_scenario pull in matplotlib and scipy; import them on first use so that
    # `import boardsim` and `simulate` start fast
    if name == "sweep":
        from boardsim.sweeps import sweep

        return sweep
    if name == "tournament":
        from boardsim.tournaments import run_tournament

        return run_tournament
    if name == "ladder":
        from boardsim.analysis.ladder import run_ladder

        return run_ladder
    if name == "optimize":
        from boardsim.analysis.optimize import optimize

        return optimize
    if name == "patch":
        from boardsim.analysis.patch_job import patch

        return patch
    if name == "cards":
        from boardsim.analysis.jobs import cards

        return cards
    if name == "learn":
        from boardsim.analysis.learn import learn

        return learn
    if name == "meta":
        from boardsim.analysis.jobs import meta

        return meta
    if name == "feel":
        from boardsim.analysis.feel import feel

        return feel
    if name == "replay":
        from boardsim.replays import replay

        return replay
    if name == "load_scenario":
        from boardsim.scenario import load_scenario

        return load_scenario
    raise AttributeError(f"module 'boardsim' has no attribute {name!r}")
