"""stats/metagame.py: the equilibrium, alpha-Rank, replicator dynamics and the transitive/cyclic split on games
with known answers, and the bootstrap intervals' coverage on a sampled toy."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim.stats import metagame as M

RPS = np.array([[0.5, 0.8, 0.2], [0.2, 0.5, 0.8], [0.8, 0.2, 0.5]])
# an uneven cycle: the equilibrium is (1/4, 1/4, 1/2) (solve (A - 1/2)' x = 0 with sum x = 1)
UNEVEN = np.array([[0.5, 0.7, 0.4], [0.3, 0.5, 0.6], [0.6, 0.4, 0.5]])
# policy 0 beats both others, 1 beats 2: strictly dominated policies
DOMINATED = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.3, 0.4, 0.5]])
# two policies level with each other that both beat a third: the equilibria are every mix of the two
TWINS = np.array([[0.5, 0.5, 0.7], [0.5, 0.5, 0.7], [0.3, 0.3, 0.5]])


def _sample(a: np.ndarray, deals: int, seed: int) -> np.ndarray:
    """Per-deal comparisons: in each deal every pair meets once and i wins with probability a[i, j]."""
    gen = np.random.default_rng(seed)
    k = a.shape[0]
    out = np.zeros((deals, k, k))
    for i in range(k):
        for j in range(i + 1, k):
            won = gen.random(deals) < a[i, j]
            out[:, i, j], out[:, j, i] = won, ~won
    return out


def test_rock_paper_scissors_settles_on_equal_shares():
    assert np.allclose(M.nash(RPS), 1 / 3, atol=1e-6)
    pi, _alpha = M.alpha_rank(RPS)
    assert np.allclose(pi, 1 / 3, atol=1e-6)
    assert np.allclose(M.replicator(RPS, points=2)[2], 1 / 3, atol=1e-6)  # equal shares are the rest point
    assert M.transitive_share(RPS) == pytest.approx(0.0, abs=1e-12)


def test_an_uneven_cycle_recovers_its_equilibrium_and_the_replicator_average_tends_to_it():
    assert np.allclose(M.nash(UNEVEN), [0.25, 0.25, 0.5], atol=1e-6)
    times, path, mean = M.replicator(UNEVEN)
    assert np.allclose(mean, [0.25, 0.25, 0.5], atol=0.01)
    assert path[-1].max() > 0.5 or path[-1].min() < 0.2  # the path itself circles: it never settles there
    assert np.allclose(path.sum(axis=1), 1.0) and times[0] == 0.0


def test_a_dominated_strategy_gets_no_share():
    assert np.allclose(M.nash(DOMINATED), [1, 0, 0], atol=1e-7)
    pi, _ = M.alpha_rank(DOMINATED)
    assert pi[0] > 0.999
    assert M.replicator(DOMINATED, points=2)[2][0] > 0.99
    assert M.transitive_share(DOMINATED) == pytest.approx(1.0)


def test_where_equilibria_form_a_set_the_one_of_maximum_entropy():
    assert np.allclose(M.nash(TWINS), [0.5, 0.5, 0.0], atol=1e-6)
    assert M.alpha_rank(TWINS)[0][2] < 1e-3


def test_alpha_rank_raises_alpha_until_the_ranking_stops_moving():
    pi, alpha = M.alpha_rank(UNEVEN)
    assert M.ALPHA_START <= alpha <= M.ALPHA_MAX
    nxt, _ = M.alpha_rank(UNEVEN, alpha * 10)
    assert np.abs(nxt - pi).sum() < M.ALPHA_TOL or alpha * 10 > M.ALPHA_MAX
    assert pi.sum() == pytest.approx(1.0) and (pi >= 0).all()


def test_payoff_table_is_the_share_of_comparisons_won():
    per_deal = np.zeros((3, 2, 2))
    per_deal[:, 0, 1] = [1, 1, 0.5]
    per_deal[:, 1, 0] = [0, 0, 0.5]
    a = M.payoff(per_deal)
    assert a[0, 1] == pytest.approx(2.5 / 3) and a[0, 1] + a[1, 0] == pytest.approx(1.0)
    assert a[0, 0] == 0.5
    assert np.isnan(M.payoff(np.zeros((2, 2, 2)))[0, 1])  # a pair that never met


def test_metagame_tables_and_bad_tables():
    names = ["r", "p", "s"]
    mg = M.metagame(_sample(UNEVEN, 600, 1), names, seed=3, draws=40)
    s = mg.shares
    assert list(s["policy"]) == names
    for key in ("nash", "alpha_rank", "replicator"):
        assert (s[f"{key}_lo"] <= s[key] + 1e-12).all() and (s[key] <= s[f"{key}_hi"] + 1e-12).all()
        assert s[key].sum() == pytest.approx(1.0)
    assert mg.split["transitive"].iloc[0] + mg.split["cyclic"].iloc[0] == pytest.approx(1.0)
    assert set(mg.trajectory["policy"]) == set(names)
    again = M.metagame(_sample(UNEVEN, 600, 1), names, seed=3, draws=40)
    assert again.shares.equals(mg.shares)  # the same seed, the same resamples
    with pytest.raises(ValueError):
        M.metagame(np.zeros((5, 3, 3)), names)


def test_nash_share_intervals_cover_the_known_equilibrium():
    """The bootstrap's 95% percentile intervals of the Nash shares, on 40 samples of 400 deals of the uneven
    cycle (true shares 1/4, 1/4, 1/2): benchmarks/metagame_coverage.py measures 200 samples."""
    truth = np.array([0.25, 0.25, 0.5])
    hits = total = 0
    for rep in range(40):
        per_deal = _sample(UNEVEN, 400, 100 + rep)
        lo, hi = M.percentile_interval(M.bootstrap(per_deal, M.nash, draws=100, seed=rep))
        hits += int(((lo <= truth) & (truth <= hi)).sum())
        total += truth.size
    assert hits / total >= 0.85, hits / total


def test_the_shares_do_not_depend_on_the_order_the_policies_are_listed_in():
    per_deal = _sample(UNEVEN, 300, 5)
    order = [2, 0, 1]
    a = M.metagame(per_deal, ["r", "p", "s"], seed=1, draws=30).shares.set_index("policy")
    b = M.metagame(per_deal[:, order][:, :, order], ["s", "r", "p"], seed=1, draws=30).shares.set_index("policy")
    assert np.allclose(a.loc[["r", "p", "s"]].to_numpy(), b.loc[["r", "p", "s"]].to_numpy(), atol=1e-6)


def test_the_target_figures_of_a_cycle_and_a_ladder():
    # rock-paper-scissors keeps all three in the equilibrium and alpha-Rank even; a dominant policy takes all
    cycle = np.array([[0.5, 0.75, 0.25], [0.25, 0.5, 0.75], [0.75, 0.25, 0.5]])
    ladder = np.array([[0.5, 0.75, 0.75], [0.25, 0.5, 0.75], [0.25, 0.25, 0.5]])
    assert M.nash_support(cycle) == 3 and M.nash_support(ladder) == 1
    assert M.alpha_entropy(cycle) == pytest.approx(np.log2(3)) and M.alpha_entropy(ladder) < 0.01
    # two policies dominating a third between them: a support of 2
    pair = np.array([[0.5, 0.75, 0.9], [0.25, 0.5, 0.9], [0.1, 0.1, 0.5]])
    pair[0, 1], pair[1, 0] = 0.5, 0.5
    assert M.nash_support(pair) == 2 and M.alpha_entropy(pair) == pytest.approx(1.0, abs=0.01)
