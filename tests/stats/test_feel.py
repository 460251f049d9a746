"""stats/feel.py: golden traces with hand-computed values, the null walk's formula, deal sums and coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardsim.stats import feel as F


def _one(progress, rounds, win, score=None, **kw):
    p = np.array([progress], dtype=np.float64)
    s = p[:, :, -1] if score is None else np.array([score], dtype=np.float64)
    return F.game_values(p, p, np.array([rounds]), np.array([win], dtype=np.float64), s, **kw)


def test_leaders_ties_and_ended_rounds():
    keys = np.array([[[1, 3, 3, 0], [2, 3, 1, 0]]], dtype=float)  # round 2 tied, round 4 not played
    assert F.leaders(keys, np.array([3])).tolist() == [[1, -1, 0, -1]]


def test_lead_changes_skip_shared_leads():
    lead = np.array([[0, -1, 1, 1, 0, -1], [0, 0, -1, 0, 0, 0], [-1, -1, -1, -1, -1, -1]])
    assert F.lead_changes(lead).tolist() == [2, 0, 0]


def test_golden_two_seat_game():
    """Seat 1 leads, falls behind for two rounds and wins 8 to 6 (hand-computed values in the comments)."""
    v = _one([[1, 3, 5, 6], [2, 2, 4, 8]], 4, [0.0, 1.0])
    assert v["rounds"][0] == 4
    assert v["lead_changes"][0] == 2  # seat 1, seat 0, seat 0, seat 1
    assert v["leader_win"][0].tolist() == [1.0, 0.0, 0.0, 1.0]
    assert v["null_lead_changes"][0] == pytest.approx(0.25)  # 1/2 * P(S_2 = 0) = 1/2 * 1/2
    assert v["excess_lead_changes"][0] == pytest.approx(1.75)
    # middle round 2: seat 0 leads 3 to 2, a gap of 1 >= 0.10 * 8
    assert v["comeback_rate"][0] == 1.0
    assert v["final_margin"][0] == pytest.approx(2 / 8)
    assert v["blowout_rate"][0] == 1.0  # 0.25 >= 0.25
    assert v["drama"][0] == pytest.approx(math.sqrt(1 / 8))  # behind by 1 in rounds 2 and 3
    assert v["security"][0] == pytest.approx((1 + 1 + 1 + 2) / 4 / 8)
    stricter = _one([[1, 3, 5, 6], [2, 2, 4, 8]], 4, [0.0, 1.0], comeback=0.2, blowout=0.3)
    assert stricter["comeback_rate"][0] == 0.0 and stricter["blowout_rate"][0] == 0.0


def test_wire_to_wire_and_undecided_games():
    v = _one([[3, 5, 9], [1, 2, 4]], 3, [1.0, 0.0])
    assert v["lead_changes"][0] == 0 and v["comeback_rate"][0] == 0.0 and v["drama"][0] == 0.0
    shared = _one([[3, 5, 9], [1, 2, 9]], 3, [0.5, 0.5])
    assert np.isnan(shared["comeback_rate"][0]) and np.isnan(shared["drama"][0])
    assert shared["leader_win"][0].tolist()[:2] == [0.5, 0.5] and np.isnan(shared["leader_win"][0][2])
    nobody = _one([[3, 5, 9], [1, 2, 4]], 3, [0.0, 0.0])  # Art Deco: no eligible seat, no winner
    assert np.isnan(nobody["final_margin"][0]) and nobody["leader_win"][0].tolist() == [0.0, 0.0, 0.0]


def test_null_formula_values():
    assert F.null_lead_changes_two(1) == 0.0 and F.null_lead_changes_two(2) == 0.0
    assert F.null_lead_changes_two(3) == pytest.approx(0.25)
    assert F.null_lead_changes_two(5) == pytest.approx(0.25 + 0.5 * 6 / 16)
    assert F.null_lead_changes(2, 5) == F.null_lead_changes_two(5)


@pytest.mark.parametrize("length", [4, 9, 20])
def test_null_formula_matches_a_simulated_fair_race(length):
    rng = np.random.default_rng(length)
    m = 200_000
    scorer = rng.integers(0, 2, size=(m, 1, length))
    walks = np.cumsum(scorer == np.arange(2)[None, :, None], axis=2)
    sim = F.lead_changes(F.leaders(walks, np.full(m, length))).mean()
    assert sim == pytest.approx(F.null_lead_changes_two(length), abs=0.01)


def test_null_at_more_seats_grows_with_length_and_is_seeded():
    a, b = F.null_lead_changes(3, 6), F.null_lead_changes(3, 12)
    assert 0 < a < b
    F.null_lead_changes.cache_clear()
    assert F.null_lead_changes(3, 6) == a  # a fixed-seed simulation: the same number every time


def _toy(deals: int, length: int, rng) -> tuple[dict, np.ndarray]:
    """Fair two-seat races, each deal played twice with the seats swapped (the same walk, mirrored)."""
    scorer = rng.integers(0, 2, size=(deals, 1, length))
    walk = np.cumsum(scorer == np.arange(2)[None, :, None], axis=2)
    prog = np.concatenate([walk, walk[:, ::-1]])
    final = prog[:, :, -1]
    win = np.where(final[:, 0] > final[:, 1], 1.0, np.where(final[:, 0] < final[:, 1], 0.0, 0.5))
    win = np.stack([win, 1.0 - win], axis=1)
    vals = F.game_values(prog, prog, np.full(2 * deals, length), win, final)
    return vals, np.concatenate([np.arange(deals), np.arange(deals)])


def test_deal_sums_do_not_depend_on_chunks_or_order():
    vals, deal = _toy(300, 9, np.random.default_rng(3))
    whole = F.DealSums(300, 9)
    whole.add(vals, deal)
    parts = F.DealSums(300, 9)
    order = np.random.default_rng(4).permutation(len(deal))
    for chunk in np.array_split(order, 7):
        parts.add({k: v[chunk] for k, v in vals.items()}, deal[chunk])
    a, b = F.summary(whole, draws=50), F.summary(parts, draws=50)
    assert a.metrics.equals(b.metrics) and a.curve.equals(b.curve) and a.decisive == b.decisive


def test_lead_change_interval_covers_the_known_answer():
    """200 toy runs of 150 deals: the deal-level interval of the mean lead changes covers the fair race's
    expectation (benchmarks/feel_coverage.py measures it on 1,000 runs)."""
    rng = np.random.default_rng(11)
    truth = F.null_lead_changes_two(10)
    hits = 0
    for _ in range(200):
        vals, deal = _toy(150, 10, rng)
        sums = F.DealSums(150, 10)
        sums.add(vals, deal)
        est, lo, hi = F.ratio_interval(sums.total["lead_changes"], sums.count["lead_changes"])
        hits += lo <= truth <= hi
    assert hits / 200 >= 0.90


def test_decisive_round_and_its_bootstrap():
    p = np.array([0.5, 0.7, 0.95, 0.99, 0.999])
    assert F.decisive_round(p, np.ones(5)) == 3.0
    assert F.decisive_round(p, np.array([1, 1, 0.05, 0.05, 1])) == 5.0  # rounds few games reach do not count
    assert math.isnan(F.decisive_round(np.array([0.5, 0.6]), np.ones(2)))
    # a toy where the leader after round 3 always wins
    prog = np.array([[[1, 1, 5, 6], [0, 2, 1, 1]]] * 40, dtype=float)
    vals = F.game_values(prog, prog, np.full(40, 4), np.tile([1.0, 0.0], (40, 1)), prog[:, :, -1])
    sums = F.DealSums(40, 4)
    sums.add(vals, np.arange(40))
    f = F.summary(sums, draws=30)
    assert f.decisive == 3.0 and f.decisive_lo == 3.0 and f.decisive_hi == 3.0
    assert f.curve["leader_wins"].tolist() == [1.0, 0.0, 1.0, 1.0]


def test_ratio_interval_is_a_cluster_interval():
    num, den = np.array([2.0, 0.0, 1.0, 1.0]), np.array([2.0, 2.0, 2.0, 2.0])
    est, lo, hi = F.ratio_interval(num, den)
    assert est == 0.5 and lo < 0.5 < hi
    assert all(math.isnan(x) for x in F.ratio_interval(np.zeros(0), np.zeros(0)))


def test_group_sums_match_welch_and_a_placebo_group_covers_zero():
    from scipy import stats

    gen = np.random.default_rng(7)
    n = 600
    held = np.zeros((n, 2), dtype=bool)
    held[:, 0] = gen.random(n) < 0.3  # a group with an effect of +0.5 lead changes
    held[:, 1] = gen.random(n) < 0.5  # a placebo
    lead = gen.normal(1.0, 1.0, n) + 0.5 * held[:, 0]
    values = {name: np.full(n, np.nan) for name, _ in F.METRICS}
    values["lead_changes"] = lead
    g = F.GroupSums("goal", ["strong", "placebo"])
    g.add({k: v[:250] for k, v in values.items()}, held[:250])  # in two chunks
    g.add({k: v[250:] for k, v in values.items()}, held[250:])
    t = g.table().set_index(["goal", "metric"])
    r = t.loc[("strong", "lead_changes")]
    welch = stats.ttest_ind(lead[held[:, 0]], lead[~held[:, 0]], equal_var=False)
    ci = welch.confidence_interval(0.95)
    assert r["difference"] == pytest.approx(lead[held[:, 0]].mean() - lead[~held[:, 0]].mean())
    assert (r["lo"], r["hi"]) == pytest.approx((ci.low, ci.high)) and r["p_value"] == pytest.approx(welch.pvalue)
    assert r["games_with"] == held[:, 0].sum() and r["lo"] > 0
    # undefined values (nan) count on neither side
    assert t.loc[("placebo", "comeback_rate"), "games_with"] == 0
    # placebo groups: the interval covers the true 0 in about 95% of 400 fresh splits
    covered = 0
    for _ in range(400):
        p = F.GroupSums("goal", ["placebo"])
        p.add(values, (gen.random(n) < 0.5)[:, None])
        row = p.table().set_index("metric").loc["lead_changes"]
        covered += row["lo"] <= 0.0 <= row["hi"]
    assert 0.92 <= covered / 400 <= 0.98
