"""No import circles between the files of ``boardsim/``.

Every file is parsed with ``ast``; every ``import``/``from`` statement counts, at module level or inside a
function (a deferred import hides a circle from Python, not from a reader). Relative names are resolved,
``from boardsim.x import y`` counts as importing ``boardsim.x.y`` when that is a module of the package and
``boardsim.x`` otherwise, and importing ``boardsim.a.b`` counts as importing the package ``boardsim.a``
too (its ``__init__`` runs first), unless ``boardsim.a`` holds the importing file (then it has started
already) and the file imports a module of it rather than a name its ``__init__`` defines.  Imports under
``if TYPE_CHECKING:`` never run, but a reader follows them all the same: the layering tests count them
(``import_graph(type_only=True)``), the circle test of running imports does not need to.

The layering, from the ground up: the ground floor (errors, rng, stats/, options, seat, learned, tree, ...),
the games, the run layer (cell, aggregate, runner, executors, chunks, scenario, tournaments, sweeps,
replays, report/), the analyses (analysis/), and the front doors (``boardsim/__init__``, cli).  No file imports a
file of a floor above its own, and no folder imports a folder that imports it back.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "boardsim"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


def _import_nodes(tree: ast.AST, type_only: bool = False):
    """Every import statement, at any depth, except those under ``if TYPE_CHECKING:`` unless ``type_only``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if not type_only and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _with_parents(name: str, modules: dict[str, Path]) -> set[str]:
    """``name`` and every package above it that is a module of boardsim."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & modules.keys()


def import_graph(type_only: bool = False) -> dict[str, set[str]]:
    """Module name -> the boardsim modules it imports (with ``type_only``, those imported for type hints too)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if is_package else name.split(".")[:-1]
        targets: set[str] = set()
        names_read: set[str] = set()  # packages whose __init__ names the file imports (not their modules)
        for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path)), type_only):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    targets |= _with_parents(alias.name, modules)
                continue
            if node.level:
                base = here[:len(here) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets |= _with_parents(source, modules)
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    targets.add(f"{source}.{alias.name}")
                elif source in modules:
                    names_read.add(source)
        # A file's own packages are left out: Python has started them before the file runs, whatever the file
        # imports, so ``from boardsim import rng`` in a submodule is an edge to rng, not to boardsim/__init__.
        # The edges from a package's __init__ down to the modules it imports stay.
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = (targets - ancestors - {name}) | (names_read & ancestors)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def _cycle_in(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One closed path through ``component``, for the message: a -> b -> ... -> a."""
    members = set(component)
    start = component[0]
    # breadth-first from start's successors back to start, inside the component
    paths = {w: [start, w] for w in sorted(graph[start] & members)}
    frontier = list(paths)
    while start not in paths:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        if not nxt:
            break
        frontier = nxt
    return paths.get(start, component)


def test_the_graph_sees_deferred_and_relative_imports():
    graph = import_graph()
    assert "boardsim.errors" in graph["boardsim.seat"]
    # runner imports executors inside simulate (a deferred import)
    assert "boardsim.executors" in graph["boardsim.runner"]
    assert "boardsim.games.base" in graph["boardsim.games"]  # from .base import ... (relative)


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert _cycle_in(["a", "b", "c"], graph) == ["a", "b", "c", "a"]


def test_no_import_circle_between_files():
    graph = import_graph()
    found = circles(graph)
    lines = [" -> ".join(_cycle_in(c, graph)) + f"  (all of: {', '.join(c)})" for c in found]
    assert not found, "import circles:\n" + "\n".join(lines)


def test_the_run_layer_sits_below_executors():
    """seat, cell and aggregate never reach the run layer above them, and executors never reaches runner."""
    graph = import_graph()

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for w in graph[todo.pop()] - seen:
                seen.add(w)
                todo.append(w)
        return seen

    above = {"boardsim.runner", "boardsim.sweeps", "boardsim.cli", "boardsim.executors"}
    for low in ("boardsim.seat", "boardsim.cell", "boardsim.aggregate"):
        assert not reach(low) & above, (low, reach(low) & above)
    assert "boardsim.runner" not in reach("boardsim.executors")


FRONT = {"boardsim", "boardsim.cli", "boardsim.__main__"}
ANALYSES = "boardsim.analysis"
RUN_LAYER = {"boardsim.cell", "boardsim.aggregate", "boardsim.runner", "boardsim.executors", "boardsim.chunks",
             "boardsim.scenario", "boardsim.tournaments", "boardsim.sweeps", "boardsim.folders", "boardsim.cost",
             "boardsim.report", "boardsim.replays"}
GAMES = "boardsim.games"


def _room(module: str) -> str:
    """The folder (or top-level file) of boardsim a module is in: boardsim.games.art_deco.step -> boardsim.games."""
    return ".".join(module.split(".")[:2])


def _floor(module: str) -> int:
    room = _room(module)
    if module in FRONT:
        return 4
    if room == ANALYSES:
        return 3
    if room in RUN_LAYER:
        return 2
    if room == GAMES:
        return 1
    return 0  # the ground floor: everything else (errors, rng, stats, options, seat, learned, tree, ...)


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Folder (or top-level file) -> the folders its files import; boardsim's own __init__ is the front door."""
    rooms: dict[str, set[str]] = {}
    for a, targets in graph.items():
        ra = "boardsim" if a == "boardsim" else _room(a)
        rooms.setdefault(ra, set()).update(
            r for r in ("boardsim" if b == "boardsim" else _room(b) for b in targets) if r != ra)
    return rooms


def test_the_graph_counts_names_read_from_a_package_and_type_only_imports():
    # chunks reads the version from boardsim/version.py, not from the front door
    assert "boardsim" not in import_graph()["boardsim.chunks"]
    assert "boardsim.version" in import_graph()["boardsim.chunks"]
    # cell.py imports games.base for its type hints only: counted with type_only, never run
    typed = import_graph(type_only=True)
    running = import_graph()
    assert all(running[m] <= typed[m] for m in running)
    assert "boardsim.games.base" in typed["boardsim.cell"] - running["boardsim.cell"]


def test_no_folder_imports_a_folder_that_imports_it_back():
    for type_only in (False, True):
        rooms = folder_graph(import_graph(type_only))
        found = circles(rooms)
        lines = [" -> ".join(_cycle_in(c, rooms)) for c in found]
        assert not found, f"folder-level import loops (type_only={type_only}):\n" + "\n".join(lines)


def test_no_file_imports_a_floor_above_its_own():
    """Games and the ground floor import nothing of the run layer or the analyses; the run layer (sweeps
    included) runs no analysis job; nothing below the front door imports the front door."""
    graph = import_graph(type_only=True)
    back = sorted(f"{a} (floor {_floor(a)}) -> {b} (floor {_floor(b)})"
                  for a, targets in graph.items() for b in targets if _floor(b) > _floor(a))
    assert not back, "imports that run back up:\n" + "\n".join(back)
    assert not circles(graph), circles(graph)


def test_the_floor_check_catches_a_back_arrow():
    assert _floor("boardsim.sweeps") > _floor("boardsim.games.base") > _floor("boardsim.stats.intervals")
    assert _floor("boardsim.analysis.jobs") > _floor("boardsim.sweeps")
    assert circles(folder_graph({"boardsim.analysis.jobs": {"boardsim.sweeps"},
                                 "boardsim.sweeps": {"boardsim.analysis.tournament"}})) == [
        ["boardsim.analysis", "boardsim.sweeps"]]
