"""No import circle between the files of boardsim/games/fliptoons: every import, at module level or inside a
function, is followed (the package's __init__ counts as a file: 'from boardsim.games.fliptoons import GAME'
imports it)."""

from __future__ import annotations

import ast
from pathlib import Path

import boardsim.games.fliptoons

PACKAGE = "boardsim.games.fliptoons"
ROOT = Path(boardsim.games.fliptoons.__file__).parent


def _edges() -> dict[str, set[str]]:
    files = {p.stem: p for p in ROOT.glob("*.py")}
    edges: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
                edges[name] |= {a.name if a.name in files else "__init__" for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE + "."):
                edges[name].add(node.module.split(".")[3])
            elif isinstance(node, ast.Import):
                edges[name] |= {a.name.split(".")[3] for a in node.names if a.name.startswith(PACKAGE + ".")}
        edges[name].discard(name)
    return edges


def _circle(edges: dict[str, set[str]]) -> list[str]:
    """One import circle (file names, first = last), or [] if there is none."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(u: str) -> list[str]:
        state[u] = 1
        path.append(u)
        for v in sorted(edges.get(u, ())):
            if state.get(v) == 1:
                return path[path.index(v):] + [v]
            if v not in state and (found := visit(v)):
                return found
        path.pop()
        state[u] = 2
        return []

    for u in sorted(edges):
        if u not in state and (found := visit(u)):
            return found
    return []


def test_no_import_circle_between_fliptoons_files():
    edges = _edges()
    assert {"state", "engine", "decide", "step", "kernel"} <= set(edges)
    assert _circle(edges) == []


def test_the_check_finds_a_circle():
    assert _circle({"engine": {"decide"}, "decide": {"state", "engine"}, "state": set()}) == [
        "decide", "engine", "decide"]
