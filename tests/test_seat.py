"""seat.py: the card-table digest and the memo of what a cell derives from its card tables."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.games.fliptoons import cards as ft_cards
from boardsim.seat import by_table, stable_hash, table_key


def test_table_key_tells_apart_values_types_and_columns_and_ignores_index_and_attrs():
    a = pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})
    assert table_key(a) == table_key(a.copy())
    b = a.copy()
    b.index = [5, 6]
    b.attrs["goals"] = {"name": ["g"]}
    assert table_key(b) == table_key(a)
    assert table_key(a.astype({"x": float})) != table_key(a)  # 1 and 1.0
    assert table_key(a.assign(x=[1, 3])) != table_key(a)
    assert table_key(a.rename(columns={"y": "z"})) != table_key(a)
    mixed = [pd.DataFrame({"x": pd.Series([v, "s"], dtype=object)}) for v in (1, 1.0, True)]
    assert len({table_key(t) for t in mixed}) == 3  # equal in Python, three different CSVs


def test_by_table_computes_once_per_content_and_hands_out_copies():
    calls = []

    @by_table
    def doubled(t: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
        calls.append(1)
        return t["x"].to_numpy() * 2, list(t.columns)

    t = pd.DataFrame({"x": [1, 2, 3]})
    arr, cols = doubled(t)
    arr[0] = 99
    cols.append("changed")
    again, cols2 = doubled(t.copy())
    assert len(calls) == 1 and again.tolist() == [2, 4, 6] and cols2 == ["x"]
    doubled(t.assign(x=[1, 2, 4]))
    assert len(calls) == 2


def test_by_table_works_out_a_table_pickle_cannot_write_every_time():
    calls = []

    @by_table
    def rows(t: pd.DataFrame) -> int:
        calls.append(1)
        return len(t)

    odd = pd.DataFrame({"x": pd.Series([1, lambda: 0], dtype=object)})
    assert rows(odd) == rows(odd) == 2 and len(calls) == 2


def test_stable_hash_of_a_table_is_still_the_digest_of_its_csv():
    ft = get("fliptoons")
    table = ft.card_table({"Goat": {"fame": 5}})
    want = hashlib.sha256(table.to_csv(index=False).encode()).hexdigest()[:16]
    assert stable_hash(table) == stable_hash(table) == want


def test_prepared_card_arrays_equal_the_encoders_and_belong_to_their_cell():
    ft = get("fliptoons")
    table = ft.card_table({"Dog": {"fame": 3}})
    seats = [Seat("fame_per_cost")] * 2
    a = ft.prepare(2, seats, {}, table)
    assert np.array_equal(a["cards"], ft_cards.encode(table))
    assert np.array_equal(a["values"], ft_cards.card_values(table))
    a["cards"][:] = 0  # one cell's arrays changed in place do not reach the next cell on the same table
    b = ft.prepare(2, seats, {}, table)
    assert np.array_equal(b["cards"], ft_cards.encode(table))
    w = get("wagons")
    deck, goals = w.card_table(), w.goal_table()
    c = w.prepare(2, [Seat("gain_minus_gift")] * 2, {}, (deck, goals))
    c["card_land"][:] = -1
    d = w.prepare(2, [Seat("gain_minus_gift")] * 2, {}, (deck, goals))
    assert d["card_land"].min() >= 0 and d.rules_hash == c.rules_hash
