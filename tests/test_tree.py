"""The shared search tree (boardsim.tree): UCB1 with availability counts, expansion order, backup,
progressive widening and the pool's memory check."""

import numpy as np
import pytest

from boardsim import tree
from boardsim.errors import BadInput


def _bandit(means, iterations, c=0.7, seed=3):
    """Iterations of a one-level search over Bernoulli arms with the given means; returns the tree."""
    rng = np.random.default_rng(seed)
    t = tree.new_tree(iterations + 1)
    legal = np.arange(len(means), dtype=np.int64) + 10
    for _ in range(iterations):
        node, _, action = tree.descend(t, 0, legal, len(legal), 1, c)
        win = float(rng.random() < means[action - 10])
        tree.backup(t, node, np.array([1.0 - win, win]))
    return t


def test_ucb_finds_the_best_arm_and_counts_visits():
    t = _bandit([0.2, 0.8, 0.5], 400)
    assert tree.best_action(t) == 11
    assert t.stats[0, tree.T_VISITS] == 400
    visits = {int(t.links[n, tree.L_ACTION]): t.stats[n, tree.T_VISITS] for n in range(1, t.size[0])}
    assert sum(visits.values()) == 400
    assert visits[11] > visits[12] > visits[10]


def test_untried_actions_expand_first_in_the_listed_order():
    t = tree.new_tree(10)
    legal = np.array([7, 4, 9], dtype=np.int64)
    got = []
    for _ in range(3):
        node, expanded, action = tree.descend(t, 0, legal, 3, 0, 1.0)
        assert expanded == 1
        got.append(action)
        tree.backup(t, node, np.array([0.5]))
    assert got == [7, 4, 9]
    node, expanded, action = tree.descend(t, 0, legal, 3, 0, 1.0)
    assert expanded == 0 and node > 0


def test_availability_counts_only_legal_children():
    t = tree.new_tree(10)
    both = np.array([1, 2], dtype=np.int64)
    for _ in range(2):
        node, _, _ = tree.descend(t, 0, both, 2, 0, 1.0)
        tree.backup(t, node, np.array([1.0]))
    only = np.array([2], dtype=np.int64)
    for _ in range(3):
        node, expanded, action = tree.descend(t, 0, only, 1, 0, 1.0)
        assert (expanded, action) == (0, 2)
        tree.backup(t, node, np.array([0.0]))
    n1, n2 = tree.child(t, 0, 1), tree.child(t, 0, 2)
    assert t.stats[n1, tree.T_AVAIL] == 2  # legal when expanded and once more, then never
    assert t.stats[n2, tree.T_AVAIL] == 4  # legal when expanded and in the three after
    assert t.stats[n2, tree.T_VISITS] == 4 and t.stats[n2, tree.T_VALUE] == 1.0


def test_backup_credits_the_seat_that_chose_each_action():
    t = tree.new_tree(5)
    a = tree.add_child(t, 0, 3, 0)
    b = tree.add_child(t, a, 8, 1)
    tree.backup(t, b, np.array([0.25, 0.75]))
    assert t.stats[a, tree.T_VALUE] == 0.25 and t.stats[b, tree.T_VALUE] == 0.75
    assert t.stats[0, tree.T_VISITS] == t.stats[a, tree.T_VISITS] == t.stats[b, tree.T_VISITS] == 1


def test_a_full_pool_returns_the_untried_action_without_a_node():
    t = tree.new_tree(2)
    legal = np.array([5, 6], dtype=np.int64)
    node, _, _ = tree.descend(t, 0, legal, 2, 0, 1.0)
    tree.backup(t, node, np.array([1.0]))
    node, expanded, action = tree.descend(t, 0, legal, 2, 0, 1.0)
    assert (node, expanded, action) == (-1, 1, 6)
    assert t.size[0] == 2


def test_progressive_widening_grows_with_visits():
    t = tree.new_tree(3)
    assert tree.widened(t, 0, 40, 0.0, 0.5) == 40  # off
    assert tree.widened(t, 0, 40, 2.0, 0.5) == 2
    t.stats[0, tree.T_VISITS] = 99.0
    assert tree.widened(t, 0, 40, 2.0, 0.5) == 20
    assert tree.widened(t, 0, 5, 2.0, 0.5) == 5


def test_best_action_prefers_visits_then_mean():
    t = tree.new_tree(4)
    a = tree.add_child(t, 0, 1, 0)
    b = tree.add_child(t, 0, 2, 0)
    t.stats[a, :] = (5, 5, 1.0)
    t.stats[b, :] = (5, 5, 3.0)
    assert tree.best_action(t) == 2
    t.stats[a, tree.T_VISITS] = 6
    assert tree.best_action(t) == 1
    assert tree.best_action(tree.new_tree(1)) == -1


def test_pool_over_the_memory_limit_is_refused(monkeypatch):
    tree.check_pool(0, 1000, 50, 40, 2)
    monkeypatch.setenv("BOARDSIM_MCTS_MEMORY", str(10 * 2**20))
    with pytest.raises(BadInput) as e:
        tree.check_pool(1, 1_000_000, 50, 40, 2)
    assert e.value.key == "seats[1].params.iterations"
    allowed = tree.max_iterations(50, 40, 2)
    assert 0 < allowed < 1_000_000
    tree.check_pool(1, allowed, 50, 40, 2)
    with pytest.raises(BadInput):
        tree.check_pool(1, allowed + 1, 50, 40, 2)


def test_params_check_their_bounds():
    opts = {o.name: o for o in tree.params(200, ("random", "greedy"), "greedy")}
    assert opts["playout"].default == "greedy"
    for name, bad in (("iterations", 0), ("iterations", -5), ("c", -0.1), ("playout", "mcts"), ("horizon", -1)):
        with pytest.raises(BadInput):
            opts[name].check(bad)


def test_probe_table_times_each_search_and_rollout_from_a_fresh_copy():
    """The one probe every game's mcts.probe uses: a fake clock ticking by the work asked gives the rows."""
    from boardsim.tree import probe_table

    now = [0.0]
    copies = []

    def fresh(pos):
        copies.append(pos)
        return pos

    def decide(pos, tree, iterations):  # a search costs 2 us an iteration, a rollout 10 us
        now[0] += 2e-6 * iterations if iterations > 0 else 10e-6 * -iterations

    rows = probe_table(["a", "b"], fresh, decide, [100, 1000], lambda: now[0])
    assert list(rows["budget"]) == [100, 1000]
    assert np.allclose(rows["iteration_us"], 2.0) and np.allclose(rows["rollout_us"], 10.0)
    assert np.allclose(rows["decision_ms"], [0.2, 2.0]) and np.allclose(rows["ratio"], 0.2)
    assert copies == ["a", "b"] * 4  # each position copied before every timed call
