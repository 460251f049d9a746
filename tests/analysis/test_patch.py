"""The balance patch (issue 27): it finds the edit that fixes a card made far too strong, verifies on deals the
search never used, gives the same patch on every executor and after a resume, and reports today's table
unchanged with --max-edits 0."""

from __future__ import annotations

import itertools
import json
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boardsim import cli
from boardsim.analysis import patch as P
from boardsim.analysis.patch_job import make_problem, patch
from boardsim.executors import DaskExecutor, ProcessExecutor
from boardsim.games import get

# FlipToons at 3 players with its two weakest cards lifted and Snake given six copies instead of two: Snake's
# effect is then about +0.2, three times any other card's
STRONG_SNAKE = """name = "strong-snake"
game = "fliptoons"
players = 3
seats = ["fame_per_cost"]
[cards]
Dog = { fame = 2 }
Butterfly = { fame = 4 }
Snake = { copies = 6 }
"""

# a small Art Deco problem: the first player's edge at 2 players, card values within +-1
SMALL = {"players": [2], "objective": "first_player", "fields": ["value"], "max_edits": 1, "span": 1,
         "games": 240, "seed": 5}


@pytest.fixture(scope="module")
def strong(tmp_path_factory):
    folder = tmp_path_factory.mktemp("strong")
    path = folder / "strong.toml"
    path.write_text(STRONG_SNAKE)
    run = patch(str(path), fields=["copies"], max_edits=1, span=6, games=1500, seed=3, out=folder / "out", say=None)
    return run, folder / "out"


def test_a_card_made_far_too_strong_is_the_one_edited_and_verification_confirms_it(strong):
    run, out = strong
    assert [(item, fld) for item, fld, _ in run.result.edits] == [("Snake", "copies")]
    assert run.edits["Snake"]["copies"] < 6
    o = run.objective.set_index("table")
    assert bool(o.loc["patched", "confirmed"])
    assert o.loc["patched", "objective_hi"] < o.loc["today", "objective_lo"]
    v = run.verification
    snake = v[v["card"] == "Snake"].set_index("table")
    assert snake.loc["today", "effect_lo"] > 0.1 and snake.loc["patched", "effect"] < snake.loc["today", "effect_lo"]
    # the scenario's own edits stay in the patch block, which a scenario can include as it stands
    block = tomllib.loads((out / "patch.toml").read_text())["cards"]
    assert block["Dog"] == {"fame": 2} and block["Butterfly"] == {"fame": 4}
    assert block["Snake"]["copies"] == run.edits["Snake"]["copies"]
    get("fliptoons").card_table(block)  # a valid [cards] block


def test_the_report_opens_with_the_answer_and_writes_every_table(strong):
    _, out = strong
    for name in ("patch.toml", "patch_objective.csv", "patch_verification.csv", "patch_candidates.csv",
                 "patch_history.csv", "patch_dose.csv", "patch_effects.png", "patch_search.png", "index.html"):
        assert (out / name).is_file(), name
    html = (out / "index.html").read_text()
    first = html.index("1 edit: Snake copies 6 → ")
    assert first < html.index("patch_effects.png")
    assert "The verification confirms the improvement" in html
    candidates = pd.read_csv(out / "patch_candidates.csv")
    assert {"round", "candidate", "patch", "rung", "objective", "deals_first", "deals_last", "games"} <= set(
        candidates.columns)
    assert (candidates["games"] > 0).all()


def test_the_patch_charts_fit_their_figures_with_nothing_covered(strong, layout_checked):
    from boardsim.report.build import build_report

    _, out = strong
    build_report(out)
    assert {Path(p).name for p in layout_checked} >= {"patch_effects.png", "patch_search.png"}


def test_verification_deals_are_disjoint_from_the_search_deals(strong):
    run, out = strong
    candidates = pd.read_csv(out / "patch_candidates.csv")
    verification = pd.read_csv(out / "patch_verification.csv")
    assert candidates["deals_first"].min() == 0
    assert candidates["deals_last"].max() < verification["deals_first"].min()
    p = run.result.problem
    for n in (2, 3, 4):
        search0, search_n = p.segment("search", n)
        verify0, verify_n = p.segment("verify", n)
        assert (search0, verify0) == (0, search_n) and verify_n == search_n
        rungs = [p.segment(f"search{r}", n) for r in range(len(P.RUNGS))]
        assert rungs[0][0] == 0 and sum(c for _, c in rungs) == search_n  # the race's rungs tile the search deals
        assert all(a + c == b for (a, c), (b, _) in zip(rungs, rungs[1:], strict=False))
    # one cell key for every table and test: the deal ranges alone keep search and verification apart
    assert P.Measurer(p).key == P.Measurer(p).key


def _small(executor=None, threads=None, out=None):
    return patch("art_deco", **SMALL, executor=executor, threads=threads, out=out, say=None, write=out is not None)


def test_the_same_seed_gives_the_same_patch_on_every_executor_and_thread_count(dask_client):
    one = _small(threads=1).result
    assert len(one.candidates) > 0
    # every candidate the search scored stays within the span of today's values
    moves = [m.split() for patch_text in one.candidates["patch"] if patch_text != "today's table"
             for m in patch_text.split(", ")]
    assert moves and all(abs(int(m[-1]) - int(m[-3])) <= SMALL["span"] for m in moves)
    runs = [_small(threads=2).result]
    with ProcessExecutor(workers=2, threads=1) as pool:
        runs.append(_small(executor=pool).result)
    runs.append(_small(executor=DaskExecutor(client=dask_client)).result)
    for r in runs:
        assert r.edits == one.edits
        pd.testing.assert_frame_equal(r.candidates, one.candidates)
        pd.testing.assert_frame_equal(r.verification, one.verification)


def test_a_resumed_search_gives_the_same_patch(tmp_path):
    whole = _small().result

    def stop(line: str) -> None:
        if line.startswith("round 1"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        patch("art_deco", **SMALL, out=tmp_path / "out", say=stop)
    saved = list((tmp_path / "out" / "chunks" / "patch").glob("*.json"))
    assert saved
    again = patch("art_deco", **SMALL, out=tmp_path / "out", say=None)
    assert again.result.edits == whole.edits
    pd.testing.assert_frame_equal(again.result.verification, whole.verification)
    assert again.result.chunks_loaded >= len(saved) and again.result.games_played < whole.games_played


def test_max_edits_0_reports_todays_table_unchanged_with_its_figures(tmp_path, capsys):
    out = tmp_path / "out"
    code = cli.main(["patch", "art_deco", "--players", "2", "--max-edits", "0", "--games", "200", "--seed", "2",
                     "--out", str(out)])
    assert code == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert "\nNo edit: " in printed and "first-player" in printed
    # the cost before the search: games a table measurement (200 first-player games at 2 players), a range
    err = captured.err
    assert "patch: 200 games a table measurement; estimated time" in err and "(every edit used)" in err
    toml = tomllib.loads((out / "patch.toml").read_text())
    assert toml == {"cards": {}}
    o = pd.read_csv(out / "patch_objective.csv").set_index("table")
    assert o.loc["patched", "patch"] == o.loc["today", "patch"] == "today's table"
    for col in ("objective", "objective_lo", "objective_hi", "flagged"):
        assert o.loc["patched", col] == o.loc["today", col]
    assert 0 <= o.loc["today", "objective_lo"] <= o.loc["today", "objective"] <= o.loc["today", "objective_hi"]
    assert len(pd.read_csv(out / "patch_history.csv")) == 1


def test_a_scenario_is_the_starting_point_with_its_players_and_seats_as_base(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('game = "art_deco"\nplayers = 3\nseats = ["par", "eligibility", "par"]\n'
                    '[cards.v5]\ncopies = 4\n')
    p = make_problem(str(path), objective="first_player")
    assert p.counts == [3] and [b.label() for b in p.bases] == ["par", "eligibility"]
    assert p.start_edits == {"v5": {"copies": 4}}
    assert int(p.table(()).set_index("name").loc["v5", "copies"]) == 4
    assert p.items[("v5", "value")] == 5


def test_patchable_fields_per_game():
    ft = make_problem("fliptoons", players=[2])
    assert ft.objective == "cards" and ft.fields == ["fame"] and len(ft.items) == len(ft.cards) == 25
    ad = make_problem("art_deco", players=[2])
    assert ad.objective == "first_player" and set(ad.fields) == {"value", "copies"} and len(ad.items) == 24
    wg = make_problem("wagons")
    # goal parameters: each goal's a, and b where its kind reads one; card fronts have no numeric field
    assert wg.objective == "first_player" and wg.counts == [2]
    assert ("Trail Boss", "a") in wg.items and ("Last Call", "b") in wg.items and ("Badlands", "b") not in wg.items


def test_the_objective_interval_covers_the_true_worst_effect_at_least_95_percent():
    """Coverage measured: 20 tests with known effects, each estimated from 200 deals of +-1 noise; the
    simultaneous interval for max |effect| must cover the true maximum in >= 95% of 2,000 repetitions."""
    rng = np.random.default_rng(7)
    true = np.linspace(-0.12, 0.08, 20)
    deals = 200
    covered = 0
    reps = 2000
    for _ in range(reps):
        y = true[:, None] + rng.choice([-1.0, 1.0], size=(20, deals)) * 0.5
        est = y.mean(axis=1)
        se = y.std(axis=1, ddof=1) / np.sqrt(deals)
        frame = pd.DataFrame({"effect": est, "se": se, "deals": deals})
        lo, hi = P.objective_interval(frame)
        covered += lo <= np.abs(true).max() <= hi
    assert 0.95 <= covered / reps <= 1.0


def test_a_judge_verifies_the_patch_without_steering_the_search():
    searched = _small().result
    run = patch("art_deco", **SMALL, base="eligibility", judge=["par"], say=None, write=False).result
    assert run.edits == searched.edits  # the judge's games never enter the search
    pd.testing.assert_frame_equal(run.candidates, searched.candidates)
    assert set(run.verification["base"]) == {"eligibility", "par"}
    o = run.objective
    assert set(o["base"]) == {"all", "eligibility", "par"} and len(o) == 6
    whole = o[o["base"] == "all"].set_index("table")["objective"]
    per = o[o["base"] != "all"].groupby("table")["objective"].max()
    assert np.allclose(whole.sort_index(), per.sort_index())  # the objective over every base is the worst level's


def test_ctrl_c_exits_130_and_says_where_the_measurements_are(tmp_path, capsys, monkeypatch):
    from boardsim.analysis import patch_job

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(patch_job, "search_patch", interrupted)
    out = tmp_path / "out"
    assert cli.main(["patch", "art_deco", "--games", "200", "--out", str(out)]) == 130
    assert f"kept in {out / 'chunks' / 'patch'}/; rerun the same command" in capsys.readouterr().err


def test_objective_both_is_the_worse_of_the_card_and_first_player_tests():
    run = patch("fliptoons", players=[2], objective="both", max_edits=0, games=200, seed=4, say=None,
                write=False).result
    v = run.verification
    assert (v["card"] == P.FIRST).sum() == 2 and (v["card"] != P.FIRST).sum() == 2 * 25  # today and patched
    o = run.objective.set_index("table")
    for table in ("today", "patched"):
        assert o.loc[table, "objective"] == max(o.loc[table, "worst_card_effect"], o.loc[table, "worst_first_player"])


def test_a_card_test_is_the_strength_cards_reports_on_the_same_deals():
    """The patch judges a card by the measure ``cards`` reports: its swing less the market's mean swing, on the
    same deals (the search deals 0 .. D-1 of the same cell key); a card's own tests measured alone are read
    against the whole table's reference swing."""
    from boardsim.analysis.balance import card_strength
    from boardsim.games.base import Seat

    p = make_problem("fliptoons", players=[2], games=200, seed=4)
    m = P.Measurer(p)
    frame = m.measure((), "search").frame(p).set_index("card")
    g = get("fliptoons")
    cards = card_strength(g, 2, Seat("fame_per_cost"), p.cards, g.card_table(), 200, 4).set_index("card")
    assert np.allclose(frame.loc[p.cards, "effect"], cards.loc[p.cards, "effect"])
    assert np.allclose(frame.loc[p.cards, "effect_hi"], cards.loc[p.cards, "effect_hi"])
    assert abs(frame["effect"].mean()) < 1e-12  # the average card reads 0
    own = [t for t in p.tests if t.card == "Snake"]
    alone = m.measure((), "search", own).frame(p, reference=P.references(m.measure((), "search").frame(p)))
    assert np.isclose(alone["effect"].iloc[0], frame.loc["Snake", "effect"])
    with pytest.raises(ValueError):
        m.measure((), "search", own).frame(p)  # a lone card test has no reference of its own


def test_an_edit_of_a_synthetic_card_or_goal_is_named():
    """Circle the Wagons' data marks made-up cards and goals ``synthetic``: a patch that edits one says so."""
    wagons = get("wagons").card_table()
    assert P.synthetic_items(wagons, (("Last Call", "a", 1), ("Badlands", "a", 3), ("P", "goal", 2))) == [
        "Last Call", "P"]
    assert P.synthetic_items(get("fliptoons").card_table(), (("Snake", "fame", 2),)) == []


def test_a_saved_measurement_is_read_only_when_its_digest_and_check_sum_hold(tmp_path):
    """D3: a measurement file edited, copied under another measurement's name, or cut short is played again,
    and the patch is the one an untouched run finds."""
    whole = patch("art_deco", **SMALL, out=tmp_path / "out", say=None)
    saved = sorted((tmp_path / "out" / "chunks" / "patch").glob("*.json"))
    assert len(saved) >= 3
    data = json.loads(saved[0].read_text())
    data["values"][0][0] += 12  # a forged sum (the check sum no longer holds)
    saved[0].write_text(json.dumps(data))
    saved[2].write_text(saved[1].read_text())  # another measurement under this one's name (its digest differs)
    saved[1].write_text(saved[1].read_text()[:20])  # cut short
    again = patch("art_deco", **SMALL, out=tmp_path / "out", say=None)
    assert again.result.chunks_loaded == len(saved) - 3
    assert again.result.edits == whole.result.edits
    pd.testing.assert_frame_equal(again.result.verification, whole.result.verification)


# -- feel targets (issue 43 item 4) ------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "judged", "labels"), [
    ("cards", "cards", []),
    ("comeback_rate>=0.2", "", ["comeback_rate>=0.2"]),
    ("first_player + lead_changes >= 2", "first_player", ["lead_changes>=2"]),
    ("both+rounds<=9+blowout_rate<=0.3", "both", ["rounds<=9", "blowout_rate<=0.3"]),
])
def test_an_objective_is_the_card_and_first_player_part_and_feel_targets(text, judged, labels):
    got, targets = P.parse_objective(text)
    assert got == judged and [t.label() for t in targets] == labels


@pytest.mark.parametrize(("text", "says"), [
    ("fun", "allowed"),
    ("decisive_round>=6", "read from a curve"),
    ("null_lead_changes>=1", "unknown target metric"),
    ("rounds>=x", "not a finite number"),
    ("rounds>=8+rounds<=9", "one target per feel metric"),
    ("cards+", "allowed"),
])
def test_a_bad_objective_says_what_is_allowed(text, says):
    with pytest.raises(ValueError, match=says):
        P.parse_objective(text)


def test_a_shortfall_is_zero_when_the_target_is_met_and_signed_when_not():
    from boardsim.stats.feel import parse_target

    at_least, at_most = parse_target("comeback_rate>=0.2"), parse_target("rounds<=9")
    np.testing.assert_allclose(at_least.shortfall(np.array([0.1, 0.2, 0.5])), [-0.1, 0.0, 0.0])
    np.testing.assert_allclose(at_most.shortfall(np.array([8.0, 9.0, 10.5])), [0.0, 0.0, 1.5])


def test_feel_tests_read_known_answers_exactly():
    # every Art Deco game at the default rules runs its 10 rounds: rounds>=10 is met exactly (effect 0, not
    # flagged), rounds<=9 misses by exactly 1 with no spread (a placebo and a known effect)
    problem = make_problem("art_deco", players=[2, 3], objective="rounds>=10+turns<=29", games=200, max_edits=0,
                           seed=2)
    m = P.Measurer(problem)
    f = m.measure((), "verify", problem.all_tests).frame(problem)
    by = f.set_index(["card", "players"])
    assert (by.loc["rounds>=10", "effect"] == 0).all() and (by.loc["rounds>=10", "feel"] == 10).all()
    assert by.loc[("turns<=29", 2), "effect"] == 0 and by.loc[("turns<=29", 3), "effect"] == 1  # 30 turns
    assert (f["kind"] == "feel").all() and (f["deals"] == 200).all()
    assert by.loc[("rounds>=10", 2), "p_value"] == 1.0


def test_a_feel_test_sums_the_same_on_any_chunking_and_executor(monkeypatch):
    problem = make_problem("art_deco", players=[2], objective="lead_changes>=0.7", games=300, max_edits=0, seed=4)
    whole = P.Measurer(problem).measure((), "search").values
    monkeypatch.setattr(P, "CHUNK_DEALS", 37)
    with ProcessExecutor(2) as ex:
        parts = P.Measurer(problem, executor=ex).measure((), "search").values
    np.testing.assert_array_equal(whole, parts)
    # and the figure is feel's own: the same per-game values (stats.feel.chunk_values), mean over deals
    assert 0.3 < whole[0, 0] / whole[0, 2] / P.FEEL_UNIT < 1.5


def test_a_feel_target_steers_the_patch_and_is_reported(tmp_path, capsys):
    # Art Deco at 2 players: the lead changes 0.64 times a game under eligibility; asked for 0.7, two value
    # edits bring it measurably closer on fresh deals
    out = tmp_path / "out"
    assert cli.main(["patch", "art_deco", "--objective", "lead_changes>=0.7", "--players", "2", "--games", "4000",
                     "--max-edits", "2", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "Feel target lead_changes>=0.7 at 2 players under eligibility:" in text
    o = pd.read_csv(out / "patch_objective.csv").set_index("table")
    assert bool(o.loc["patched", "confirmed"]) and o.loc["patched", "worst_target_shortfall"] < 0.04
    v = pd.read_csv(out / "patch_verification.csv")
    feel = v[v["kind"] == "feel"].set_index("table")
    assert feel.loc["patched", "feel"] > feel.loc["today", "feel_hi"]
    assert (out / "patch_feel.png").is_file() and not (out / "patch_effects.png").exists()
    assert "patch_feel.png" in (out / "index.html").read_text()


# -- metagame targets (issue 43 item 4) --------------------------------------------------------------------


def _pair_sums(table: np.ndarray, deals: int = 400) -> np.ndarray:
    """Exact pair sums of a head-to-head table ``table[i, j]`` (i's share against j), two games a deal with
    WIN_UNITS per game, every deal alike (no spread)."""
    from boardsim.games.base import WIN_UNITS

    k = table.shape[0]
    out = []
    for i, j in itertools.combinations(range(k), 2):
        u = round(2 * WIN_UNITS * table[i, j])
        v = 2 * WIN_UNITS - u
        out += [u * deals, u * u * deals, v * deals, v * v * deals, u * v * deals, deals]
    return np.array(out, dtype=np.int64)


def test_metagame_figures_read_known_tables():
    from boardsim.stats.feel import parse_target
    from boardsim.stats.metagame import TARGET_METRICS

    support, entropy = (parse_target(t, TARGET_METRICS) for t in ("nash_support>=2", "alpha_entropy>=1"))
    cycle = np.array([[0.5, 0.75, 0.25], [0.25, 0.5, 0.75], [0.75, 0.25, 0.5]])  # rock-paper-scissors
    ladder = np.array([[0.5, 0.75, 0.75], [0.25, 0.5, 0.75], [0.25, 0.25, 0.5]])  # policy 0 dominates
    assert P.meta_figure(support, _pair_sums(cycle)) == (3.0, 3.0, 3.0, 1.0)  # met: p = 1
    assert P.meta_figure(support, _pair_sums(ladder)) == (1.0, 1.0, 1.0, 0.0)  # missed in every draw
    assert P.meta_figure(entropy, _pair_sums(cycle))[0] == pytest.approx(np.log2(3))
    assert P.meta_figure(entropy, _pair_sums(ladder))[0] < 0.01


def test_a_metagame_target_judges_the_base_players_head_to_head():
    # Art Deco at 2 players: par edges eligibility, eligibility beats blocker, blocker beats par every game:
    # a cycle, all three in the equilibrium and alpha-Rank near even: a support of 4 misses by exactly 1, an
    # entropy of 1 bit is met
    problem = make_problem("art_deco", players=[2], base=["eligibility", "par", "blocker"],
                           objective="nash_support>=4+alpha_entropy>=1", games=400, max_edits=0, seed=1)
    # pairs in the order of the labels (blocker, eligibility, par): bases 2, 0, 1
    assert problem.pairs == [(2, 0), (2, 1), (0, 1)] and problem.width == 5 + 3 * P.PAIR_SUMS
    f = P.Measurer(problem).measure((), "verify", problem.all_tests).frame(problem)
    assert list(f["kind"]) == ["meta", "meta"] and set(f["base"]) == {"blocker vs eligibility vs par"}
    by = f.set_index("card")
    assert by.loc["nash_support>=4", "feel"] == 3 and by.loc["nash_support>=4", "effect"] == -1
    assert by.loc["nash_support>=4", "games"] == 400 * 2 * 3 and by.loc["nash_support>=4", "p_value"] == 0
    assert by.loc["nash_support>=4", "effect_hi"] <= -1  # no draw reaches a support of 4
    assert by.loc["alpha_entropy>=1", "feel"] > 1.5 and by.loc["alpha_entropy>=1", "effect"] == 0
    # the bases listed in another order: the same figures, intervals and p-values
    other = make_problem("art_deco", players=[2], base=["blocker", "eligibility", "par"],
                         objective="nash_support>=4+alpha_entropy>=1", games=400, max_edits=0, seed=1)
    g = P.Measurer(other).measure((), "verify", other.all_tests).frame(other)
    cols = ["base", "card", "feel", "feel_lo", "feel_hi", "effect", "p_value"]
    pd.testing.assert_frame_equal(f[cols], g[cols])


@pytest.mark.parametrize(("flags", "key"), [
    (["--objective", "nash_support>=2"], "--base"),  # one base player: no table
    (["--objective", "alpha_entropy>=1", "--base", "eligibility,par", "--players", "3"], "--players"),
])
def test_a_metagame_target_needs_two_base_players_at_2_players(flags, key, tmp_path, capsys):
    assert cli.main(["patch", "art_deco", *flags, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {key}") and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


def test_per_deal_measures_of_no_deals_are_empty_not_an_error():
    """A rung of the race can hold 0 deals: the head-to-head sums and the feel figures are then empty."""
    from boardsim.cell import make_cell
    from boardsim.games.base import Seat

    g = get("art_deco")
    sums, games = P.pair_sums(g, Seat("par"), Seat("random"), None, g.card_table(), 7, 3, 0)
    assert games == 0 and sums.tolist() == [0] * P.PAIR_SUMS
    cell = make_cell(g, 2, [Seat("par")] * 2, None, g.card_table(), seating_design="all")
    num, den = P.deal_figures(cell, 7, 3, 0, "lead_changes")
    assert num.shape == den.shape == (0,)
