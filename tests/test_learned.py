"""boardsim.learned: the jitted scorer against a NumPy reference, the model file and its checks, and the
learned policy in every game (a model's weights never recompile an engine)."""

from __future__ import annotations

import numpy as np
import pytest

import boardsim
from boardsim import learned
from boardsim.errors import BadInput
from boardsim.games.base import Seat


def _random_model(rng, F=5, C=4, K=3, cat=True) -> learned.Model:
    m = learned.zero_model("art_deco", 2, [f"f{k}" for k in range(F)], [f"c{j}" for j in range(C)],
                           cat_col=C - 1 if cat else -1, cat_size=K)
    m.f_mean[:] = rng.normal(size=F)
    m.f_inv[:] = np.abs(rng.normal(size=F))
    m.f_inv[0] = 0.0  # an ignored feature
    m.c_mean[:] = rng.normal(size=C)
    m.c_inv[:] = np.abs(rng.normal(size=C))
    m.c_inv[C - 1] = 0.0
    m.w[:] = rng.normal(size=C)
    m.W[:] = rng.normal(size=(C, F))
    m.u[:] = rng.normal(size=m.u.size)
    return m


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


def test_the_scorer_equals_the_numpy_softmax_on_random_candidate_matrices():
    rng = np.random.default_rng(7)
    for trial in range(50):
        m = _random_model(rng, cat=trial % 2 == 0)
        rows = int(rng.integers(1, 12))
        f = rng.normal(size=5) * 3
        c = rng.normal(size=(rows, 4)) * 3
        c[:, 3] = rng.integers(-1, 4, size=rows)  # categories, -1 and 3 out of range: no weight
        scores = np.zeros(rows)
        learned.score(f, np.ascontiguousarray(c), learned.pack(m), scores)
        np.testing.assert_allclose(_softmax(scores), learned.softmax_reference(f, c, m), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("C", [3, 8])
def test_dense_weights_and_row_score_equal_the_scorer_on_random_models(C):
    """The lane tables' column weights equal column_weights (as numbers) and give the scorer's own row scores:
    ignored features and columns, huge inputs (clipped) and categories in and out of range included."""
    rng = np.random.default_rng(C)
    for trial in range(40):
        F = int(rng.integers(1, 12))
        m = _random_model(rng, F=F, C=C, cat=trial % 2 == 0)
        m.f_inv[rng.random(F) < 0.3] = 0.0
        params = learned.pack(m)
        lw, lz = learned.lane_tables(params)
        z, g, ref = np.zeros(F), np.zeros(learned.LANES), np.zeros(C)
        for _ in range(5):
            f = rng.normal(size=F) * 3
            f[rng.random(F) < 0.1] = 2.0**40
            c = np.ascontiguousarray(rng.normal(size=(4, C)) * 3)
            c[:, C - 1] = rng.integers(-1, 4, size=4)
            learned.dense_weights(f, lw, lz, z, g)
            learned.column_weights(f, params, ref)
            assert list(g[:C]) == list(ref)
            scores = np.zeros(4)
            learned.logits(f, c, params, scores)
            assert [learned.row_score(c[i], params, g) for i in range(4)] == list(scores)


def test_lane_tables_refuse_a_model_wider_than_the_lanes():
    m = _random_model(np.random.default_rng(0), C=learned.LANES + 1, cat=False)
    with pytest.raises(ValueError, match="candidate columns"):
        learned.lane_tables(learned.pack(m))


def test_standardised_inputs_are_clipped_so_a_huge_number_stays_bounded():
    m = _random_model(np.random.default_rng(1), cat=False)
    f = np.array([0.0, 2.0**40, 0, 0, 0])
    c = np.array([[2.0**40, 0, 0, 0], [0.0, 0, 0, 0]])
    scores = np.zeros(2)
    learned.score(f, c, learned.pack(m), scores)
    assert np.isfinite(scores).all()
    np.testing.assert_allclose(_softmax(scores), learned.softmax_reference(f, c, m))


def test_temperature_samples_from_the_softmax_and_the_draw_is_a_function_of_the_position():
    rng = np.random.default_rng(3)
    m = _random_model(rng, cat=False)
    c = np.ascontiguousarray(rng.normal(size=(3, 4)))
    params = learned.pack(m, temperature=1.0)
    picks = np.zeros(3)
    scores = np.zeros(3)
    for k in range(6000):
        f = np.array([float(k), 0.0, 0.0, 0.0, 0.0])  # feature 0 is ignored by the model: same softmax, new draw
        learned.score(f, c, params, scores)
        picks[np.argmax(scores)] += 1
    p = learned.softmax_reference(np.zeros(5), c, m)
    assert np.abs(picks / picks.sum() - p).max() < 0.03
    again = np.zeros(3)
    learned.score(np.zeros(5), c, params, scores)
    learned.score(np.zeros(5), c, params, again)
    np.testing.assert_array_equal(scores, again)


def test_a_vector_that_is_not_a_model_scores_every_candidate_alike():
    scores = np.ones(3)
    learned.score(np.zeros(2), np.zeros((3, 2)), np.zeros(20), scores)
    assert (scores == 0).all()


def test_a_model_file_round_trips(tmp_path):
    m = _random_model(np.random.default_rng(5))
    m.info["teacher"] = "mcts"
    learned.save(m, tmp_path / "m.npz")
    back = learned.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.weights(), m.weights())
    assert back.features == m.features and back.cat_col == m.cat_col and back.info["teacher"] == "mcts"
    assert back.digest() == m.digest()


@pytest.mark.parametrize("break_it, says", [
    (lambda p: p.write_bytes(b"not a zip"), "cannot read model file"),
    (lambda p: p.unlink(), "no model file"),
    (lambda p: np.savez(p, w=np.zeros(3)), "is not a boardsim model"),
])
def test_a_missing_or_corrupt_model_file_is_one_error_naming_the_key(tmp_path, break_it, says):
    path = tmp_path / "m.npz"
    learned.save(_random_model(np.random.default_rng(0)), path)
    break_it(path)
    with pytest.raises(BadInput) as e:
        learned.load(path, "seats[0].params.model")
    assert e.value.key == "seats[0].params.model" and says in e.value.message


def test_wrong_shapes_are_refused(tmp_path):
    m = _random_model(np.random.default_rng(0))
    m.W = np.zeros((2, 2))
    learned.save(m, tmp_path / "m.npz")
    with pytest.raises(BadInput, match="W has shape"):
        learned.load(tmp_path / "m.npz")


def _view_model(game: str, players: int) -> learned.Model:
    g = boardsim.games.get(game)
    v = g.learned_view()
    m = learned.zero_model(game, players, v.features, v.columns, v.cat_col, v.cat_size, v.cat2_col, v.cat2_size)
    rng = np.random.default_rng(11)
    m.c_inv[:] = 1.0
    m.w[:] = rng.normal(size=m.w.size)
    return m


def test_a_model_for_another_game_player_count_or_card_set_is_refused(tmp_path):
    g = boardsim.games.get("fliptoons")
    learned.save(_view_model("art_deco", 2), tmp_path / "ad.npz")
    learned.save(_view_model("fliptoons", 3), tmp_path / "ft3.npz")
    m = _view_model("fliptoons", 2)
    m.features = m.features[:-1] + ("count_Dragon",)
    m.f_mean, m.f_inv, m.W = m.f_mean, m.f_inv, m.W
    learned.save(m, tmp_path / "cards.npz")
    for name, says in (("ad.npz", "a model for fliptoons"), ("ft3.npz", "a model for 2 players"),
                       ("cards.npz", "another decision view")):
        with pytest.raises(BadInput) as e:
            g.prepare(2, [Seat("learned", {"model": str(tmp_path / name)}), Seat("fame_per_cost")], None,
                      g.card_table())
        assert e.value.key == "seats[0].params.model" and says in e.value.message


def test_a_negative_temperature_is_refused():
    g = boardsim.games.get("art_deco")
    with pytest.raises(BadInput) as e:
        g.prepare(2, [Seat("learned", {"temperature": -1.0}), Seat("par")], None, g.card_table())
    assert e.value.key.endswith("temperature")


@pytest.mark.parametrize("game", ["art_deco", "fliptoons", "wagons"])
def test_new_weights_play_differently_and_never_recompile(tmp_path, game):
    g = boardsim.games.get(game)
    a, b = _view_model(game, 2), _view_model(game, 2)
    b.w[:] = -b.w
    learned.save(a, tmp_path / "a.npz")
    learned.save(b, tmp_path / "b.npz")

    def scores(path):
        prep = g.prepare(2, [Seat("learned", {"model": str(path)}), Seat(g.default_policy)], None, g.card_table())
        return g.play(prep, 5, 0, 6)["score"]

    first = scores(tmp_path / "a.npz")
    compiled = {id(d): len(d.signatures) for d in _dispatchers()}
    second = scores(tmp_path / "b.npz")
    assert {id(d): len(d.signatures) for d in _dispatchers()} == compiled
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, scores(tmp_path / "a.npz"))


def _dispatchers():
    import sys

    from numba.core.dispatcher import Dispatcher

    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("boardsim"):
            for v in vars(mod).values():
                if isinstance(v, Dispatcher):
                    yield v
