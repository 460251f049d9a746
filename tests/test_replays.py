"""replays.py and report/replay_page.py: the replayed deal is the game the sweep played, the page's
data (the chosen option first, visit shares and model probabilities that are distributions), picks that
pick what they say, a seat's view that holds no card it could not see, and bad input refused with nothing
written.  The page in a real browser: tests/test_replay_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import boardsim
from boardsim import replays as RP
from boardsim.cli import main
from boardsim.report.replay_page import read_data

TABLES = {  # game: seats (fast ones: a search seat gets its own test)
    "art_deco": ["learned", "eligibility"],
    "fliptoons": ["learned", "fame_per_cost"],
    "wagons": ["learned", "gain_minus_gift"],
}


def _page(path: Path) -> dict:
    return read_data(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", sorted(TABLES))
def test_the_replayed_deal_is_the_game_simulate_plays(game, tmp_path):
    df = boardsim.simulate(game, 6, TABLES[game], seed=11, seating="fixed")
    for deal in (0, 5):
        r = RP.replay(game, TABLES[game], seed=11, deal=deal, out=tmp_path / f"{deal}.html")
        data = _page(r.path)
        want = [int(df.loc[deal, f"score_{s}"]) for s in range(2)]
        assert r.score == want == data["score"]
        assert data["win"] == [float(df.loc[deal, f"win_{s}"]) for s in range(2)]
        assert data["deal"] == deal and data["seats"] == TABLES[game]
        # the chart ends at the final scores where the engine's progress is the score
        if game != "fliptoons":  # FlipToons' last progress point is the last Check Fame's fame, then Final Flip
            assert [row[-1] for row in data["progress"]] == want
        steps = data["steps"]
        assert steps and all(sum(o["chosen"] for o in s["options"]) == 1 and s["options"][0]["chosen"] for s in steps)
        assert [s["round"] for s in steps] == sorted(s["round"] for s in steps)
        for s in steps:
            assert len(s["view"]) == len(data["features"])
            assert all(len(o["row"]) == len(data["columns"]) for o in s["options"])
            if data["policies"][s["seat"]] == "learned":
                p = [o["prob"] for o in s["options"]]
                assert abs(sum(p) - 1) < 1e-3 and max(p) == p[0]  # greedy: the chosen option is the likeliest
            else:
                assert all(o["prob"] is None and o["share"] is None for o in s["options"])
        assert r.path.stat().st_size < 2_000_000


def test_a_search_seat_shows_its_visit_shares(tmp_path):
    r = RP.replay("wagons", ["mcts(iterations=60)", "gain_minus_gift"], seed=2, deal=1, out=tmp_path / "w.html")
    data = _page(r.path)
    searched = [s for s in data["steps"] if s["seat"] == 0]
    assert searched
    for s in searched:
        shares = [o["share"] for o in s["options"]]
        assert abs(sum(shares) - 1) < 1e-3 and all(0 <= x <= 1 for x in shares)
        # an option's value is the search's mean backed-up win share: in [0, 1] where it was visited
        assert all((o["value"] is None) == (o["share"] == 0) for o in s["options"])
        assert all(0 <= o["value"] <= 1 for o in s["options"] if o["value"] is not None)
    # the search plays its most visited option (ties aside)
    assert np.mean([s["options"][0]["share"] == max(o["share"] for o in s["options"]) for s in searched]) > 0.8
    df = boardsim.simulate("wagons", 2, ["mcts(iterations=60)", "gain_minus_gift"], seed=2, seating="fixed")
    assert r.score == [int(df.loc[1, "score_0"]), int(df.loc[1, "score_1"])]


def _values(out: dict, rules: dict) -> tuple[dict, dict]:
    return out, RP.chunk_values(boardsim.games.get("art_deco"), out, rules)


def test_picks_pick_what_they_say():
    g = boardsim.games.get("art_deco")
    c = RP.policies_cell(g, 2, [RP.as_seat("learned"), RP.as_seat("eligibility")], None, g.card_table(), index=0,
                          seating_design="fixed")
    prep = c.prepared[0]
    key = RP.rng.cell_key(4, 0)
    out, values = RP._feel_values(g, prep, key, 300)
    win = out["win"]
    deal, why = RP.pick_deal(g, prep, key, "longest", 300)
    assert values["rounds"][deal] == values["rounds"].max() and "longest" in why
    deal, why = RP.pick_deal(g, prep, key, "first-player-loses", 300)
    assert win[deal, out["first_player"][deal]] == 0.0
    deal, why = RP.pick_deal(g, prep, key, "comeback", 300)
    assert values["comeback_rate"][deal] == 1.0
    deal, why = RP.pick_deal(g, prep, key, "upset", 300)
    shares = win.mean(axis=0)  # learned (seat 0) is the stronger: an upset is eligibility's win
    assert shares[0] > shares[1] and win[deal, 1] == 1.0 and "eligibility" in why
    deal, why = RP.pick_deal(g, prep, key, "typical", 300)
    for name in ("rounds", "lead_changes"):
        v = values[name]
        assert abs(v[deal] - np.median(v)) <= np.std(v) + 1e-9
    # the same pick gives the same deal (deterministic)
    assert RP.pick_deal(g, prep, key, "upset", 300)[0] == RP.pick_deal(g, prep, key, "upset", 300)[0]


def _art_deco_public_cards(log: list[dict]) -> dict[int, set[int]]:
    """Per round, the card values the trace shows every seat: the active card and the cards turned up."""
    seen: dict[int, set[int]] = {}
    for block in log:
        public = seen.setdefault(block["round"], set())
        for line in block["text"].splitlines():
            m = re.match(r"Round \d+: active card (\d+)", line)
            if m:
                public.add(int(m.group(1)))
            m = re.search(r"turns up an? (\d+)", line)
            if m:
                public.add(int(m.group(1)))
    return seen


def _held(log: list[dict], seat: int, upto: int) -> set[int]:
    """Card values seat ``seat`` held at some point up to round ``upto`` (dealt, won, bought)."""
    held: set[int] = set()
    for block in log:
        if block["round"] > upto:
            break
        for line in block["text"].splitlines():
            m = re.match(rf"\s+P{seat} [^:]*: \[([\d, ]+)\]", line)
            if m:
                held |= {int(x) for x in m.group(1).split(",")}
            m = re.match(rf"\s+P{seat} (?:wins|buys) the (\d+)", line)
            if m:
                held.add(int(m.group(1)))
    return held


def test_a_seats_view_never_shows_a_card_it_could_not_see(tmp_path):
    """Art Deco hides the pile: at a bid or a buy the seat's view and options hold only the card on auction or
    the cards turned up this round; at a sale only cards the seat holds.  Checked on the data the page embeds,
    against the omniscient log of the same game."""
    r = RP.replay("art_deco", ["eligibility", "blocker", "par"], players=3, seed=8, deal=2, out=tmp_path / "a.html")
    data = _page(r.path)
    public = _art_deco_public_cards(data["log"])
    f = data["features"].index("value")
    checked = 0
    for s in data["steps"]:
        shown = {int(o["row"][data["columns"].index("value")]) for o in s["options"]} - {0}
        if s["kind"] in ("bid", "buy"):
            assert s["view"][f] in public[s["round"]]
            assert shown <= public[s["round"]], (s, public[s["round"]])
        else:
            assert shown <= _held(data["log"], s["seat"], s["round"])
        checked += 1
    assert checked > 20
    # the omniscient log is in the page, and hidden until asked for
    text = r.path.read_text(encoding="utf-8")
    assert "id='omniscient' class='hidden'" in text


def test_a_sweep_folders_deal_is_the_sweeps_game(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text('name = "rp"\ngame = "art_deco"\ngames = 24\nseed = 5\nplayers = 2\n'
                              'seating = "all"\n[[seats]]\npolicy = "learned"\n[[seats]]\npolicy = "par"\n')
    res = boardsim.sweep("s.toml", out="out", progress=False)
    assert res.cells_done == 1
    r = RP.replay_folder("out", 1, deal=3, seating=1)
    assert r.path == Path("out/replay-cell1-deal3.html")
    data = _page(r.path)
    assert data["seats"] == ["par", "learned"]  # arrangement 1 of "all": the two seats swapped
    df = boardsim.simulate("art_deco", 24, ["learned", "par"], seed=5, seating="all")
    row = df[(df["rotation"] == 1)].iloc[3]  # simulate's columns are per listed slot: learned is score_0
    assert r.score == [int(row["score_1"]), int(row["score_0"])]
    assert main(["replay", "out", "--cell", "1", "--pick", "longest", "--games", "12"]) == 0
    assert Path("out/replay-cell1-longest.html").is_file()


@pytest.mark.parametrize(("argv", "says"), [
    (["art_deco", "--deal", "2", "--pick", "upset"], "--pick: given with --deal"),
    (["art_deco", "--pick", "boring"], "--pick: got 'boring'"),
    (["art_deco", "--cell", "1"], "--cell: goes with a sweep folder"),
    (["art_deco", "--games", "0"], "--games"),
    (["nothing_here"], "unknown game"),
    (["OUT", "--deal", "1"], "--cell: OUT is a sweep folder"),
    (["OUT", "--cell", "9"], "--cell: got 9; allowed: an integer in [1, 1]"),
    (["OUT", "--cell", "1", "--deal", "99"], "--deal: got 99; allowed: an integer in [0, 5]"),
    (["OUT", "--cell", "1", "--seating", "3"], "--seating: got 3; allowed: an integer in [0, 1]"),
    (["OUT", "--cell", "1", "--policies", "par"], "--policies: the sweep folder's scenario sets the table"),
    (["OUT", "--cell", "1", "--seed", "0"], "--seed: the sweep folder's scenario sets the table"),
    (["art_deco", "--out", "DIR"], "--out"),
])
def test_bad_replay_input_is_one_error_line_and_writes_nothing(argv, says, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text('name = "rp"\ngame = "art_deco"\ngames = 12\nseed = 5\nplayers = 2\n'
                              'seating = "all"\n[[seats]]\npolicy = "eligibility"\n[[seats]]\npolicy = "par"\n')
    boardsim.sweep("s.toml", out="OUT", progress=False)
    Path("DIR").mkdir()
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    capsys.readouterr()
    try:
        rc = main(["replay", *argv])
    except SystemExit as e:  # argparse's own checks (a flag's type)
        rc = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("error:") and says in err[0], err
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_a_sweep_writes_the_replays_its_scenario_asks_for_and_links_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text('name = "rp"\ngame = "art_deco"\ngames = 40\nseed = 6\nplayers = 2\n'
                              'replays = ["typical", "longest", "typical"]\n'
                              '[[seats]]\npolicy = "eligibility"\n[[seats]]\npolicy = "par"\n')
    boardsim.sweep("s.toml", out="out", progress=False)
    made = sorted(p.name for p in Path("out").glob("replay-*.html"))
    assert made == ["replay-cell1-longest.html", "replay-cell1-typical.html"]
    index = Path("out/index.html").read_text(encoding="utf-8")
    answer = index.split("<section id='answer'>", 1)[1].split("</section>", 1)[0]
    assert "href='replay-cell1-longest.html'" in answer and "the longest of 20 deals" in answer
    data = _page(Path("out/replay-cell1-longest.html"))
    df = boardsim.simulate("art_deco", 40, ["eligibility", "par"], seed=6, seating="all")
    row = df[df["rotation"] == 0].iloc[data["deal"]]  # arrangement 0: the listed order
    assert data["score"] == [int(row["score_0"]), int(row["score_1"])]
    # a rerun clears the old replays with the rest of the report and writes them again
    Path("out/replay-cell1-upset.html").write_text("old")
    boardsim.sweep("s.toml", out="out", progress=False)
    assert sorted(p.name for p in Path("out").glob("replay-*.html")) == made


@pytest.mark.parametrize("value", ['["boring"]', '"upset"', "[1]"])
def test_a_scenarios_bad_replays_is_refused_by_key(value, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(f'game = "art_deco"\nreplays = {value}\n')
    with pytest.raises(boardsim.BadInput) as e:
        boardsim.load_scenario(p)
    assert e.value.key == "replays" and "upset, comeback, typical, longest, first-player-loses" in e.value.message


def test_cards_and_ladder_link_replays_beside_their_answers(tmp_path, capsys):
    """``cards --replays``: a game the strongest and the weakest card's owner (seat 0, favouring it) won;
    ``ladder --replays``: the top two rungs head to head, an upset and a typical game."""
    assert main(["cards", "fliptoons", "--games", "200", "--cards", "Lion,Dog,Cat", "--replays",
                 "--out", str(tmp_path / "cards")]) == 0
    made = sorted(p.name for p in (tmp_path / "cards").glob("replay-*.html"))
    assert len(made) == 2 and all(name.endswith("-owner-wins.html") for name in made)
    for name in made:
        data = _page(tmp_path / "cards" / name)
        card = name.removeprefix("replay-").removesuffix("-owner-wins.html")
        assert data["win"][0] == 1.0 and card in data["seats"][0]  # the seat favouring the card won
    index = (tmp_path / "cards" / "index.html").read_text(encoding="utf-8")
    assert all(f"href='{name}'" in index for name in made)
    assert main(["ladder", "art_deco", "--games", "40", "--budgets", "5", "--replays", "--quiet",
                 "--out", str(tmp_path / "ladder")]) == 0
    made = sorted(p.name for p in (tmp_path / "ladder").glob("replay-*.html"))
    assert made == ["replay-top-two-typical.html", "replay-top-two-upset.html"]
    ladder = __import__("pandas").read_csv(tmp_path / "ladder" / "ladder.csv")
    data = _page(tmp_path / "ladder" / "replay-top-two-upset.html")
    assert data["seats"] == list(ladder["policy"][:2]) and data["win"][1] == 1.0  # the second rung wins
    assert "href='replay-top-two-upset.html'" in (tmp_path / "ladder" / "index.html").read_text(encoding="utf-8")


def test_won_by_picks_among_the_deals_that_seat_wins(tmp_path):
    r = RP.replay("art_deco", ["eligibility", "par"], seed=3, pick="longest", won_by=1, games=100,
                  out=tmp_path / "w.html")
    assert r.win[1] == 1.0 and "P1 wins" in r.reason
    with pytest.raises(boardsim.BadInput) as e:
        RP.replay("art_deco", ["eligibility", "par"], deal=2, won_by=1, out=tmp_path / "x.html")
    assert e.value.key == "won_by"


def test_patch_links_a_game_of_the_patched_table_and_the_same_deal_on_todays(tmp_path):
    from boardsim.analysis.patch_job import patch

    run = patch("art_deco", players=2, max_edits=1, span=2, games=300, seed=3, out=tmp_path / "p", say=None,
                replays=True)
    after, before = (_page(tmp_path / "p" / name) for name in ("replay-patched.html", "replay-today.html"))
    assert after["deal"] == before["deal"] and "patched" in after["title"] and "today" in before["title"]
    df = boardsim.simulate("art_deco", before["deal"] + 1, ["eligibility"], seed=3, players=2, seating="fixed")
    assert before["score"] == [int(df[f"score_{s}"].iloc[-1]) for s in range(2)]  # today's table: simulate's game
    if run.result.edits:  # the patched table's game is played with the edited cards
        edited = boardsim.simulate("art_deco", after["deal"] + 1, ["eligibility"], seed=3, players=2,
                                   seating="fixed", cards=run.result.problem.edits_dict(run.result.edits))
        assert after["score"] == [int(edited[f"score_{s}"].iloc[-1]) for s in range(2)]
    index = (tmp_path / "p" / "index.html").read_text(encoding="utf-8")
    assert "href='replay-patched.html'" in index and "href='replay-today.html'" in index


@pytest.mark.parametrize("game", ["fliptoons", "wagons"])
def test_the_public_table_is_drawn_as_it_stood_before_the_step(game, tmp_path):
    """FlipToons: every seat's grid at the round's flip (all face up), the one each decision of that round
    sees; Circle the Wagons: both towns after the turn before the decision's.  Parsed from the game's own
    trace, so each grid holds the grid's cards and each town grows by one card a turn."""
    r = RP.replay(game, TABLES[game], seed=4, deal=2, out=tmp_path / "t.html")
    data = _page(r.path)
    tables = data["tables"]
    assert tables
    for s in data["steps"]:
        if s["table"] is None:  # the first Wagons turn: no town yet
            assert game == "wagons" and s["round"] == 1
            continue
        lag = 1 if game == "wagons" else 0
        assert s["table"] <= s["round"] - lag and str(s["table"]) in tables
    if game == "fliptoons":
        first = tables["1"]
        assert first["kind"] == "grids" and len(first["grids"]) == 2
        assert all(len(g) == 6 and all(c["card"] and c["fame"] is not None for c in g) for g in first["grids"])
        text = data["log"][1]["text"]  # round 1's block names every card of the grids it drew
        assert all(f"[{c['card']}]" in text for g in first["grids"] for c in g)
    else:
        cards = [sum(c != ".." for row in town for c in row) for town in tables[max(tables, key=int)]["towns"]]
        assert all(n >= 4 for n in cards)  # each card fills 2 x 2 corners of its town
