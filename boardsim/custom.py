"""Policies as code: a user's ``@numba.njit`` scorer, called by the engines through a function pointer.

A scorer has the signature::

    @numba.njit
    def my_policy(features, candidates, params, scores):
        for i in range(candidates.shape[0]):
            scores[i] = candidates[i, 3] / max(candidates[i, 1], 1.0)

- ``features`` (float64, 1-d): the decision's named features, in the order the game documents;
- ``candidates`` (float64, 2-d, one row per legal action): the candidate features the game documents;
- ``params`` (float64, 1-d): the seat's numeric parameters, in alphabetical order of their names;
- ``scores`` (float64, 1-d, one slot per candidate): the scorer writes one score per candidate, and the
  engine takes the highest (the first on ties).

It returns nothing.  Every array is owned by the engine and reused, so a scorer must not keep one.
In a scenario, ``policy = "custom"`` names the scorer as ``params.function = "module:function"``; that
path is imported again on every process and Dask worker, so the module must be importable there.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from numba import njit, types
from numba.core import cgutils
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

from boardsim.errors import BadInput
from boardsim.seat import Seat

SIGNATURE = types.void(types.float64[::1], types.float64[:, ::1], types.float64[::1], types.float64[::1])
SCORER = types.FunctionType(SIGNATURE)
SCORERS = types.UniTuple(SCORER, 4)  # one per seat: the engines take the same tuple at every player count
SIGNATURE_TEXT = "f(features, candidates, params, scores) -> None over float64 arrays (1-d, 2-d, 1-d, 1-d)"

# First-class functions are marked experimental in numba; they are what lets one compiled engine call any
# scorer, so the warning says nothing a user can act on.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)


@njit(cache=True, nogil=True)
def no_scorer(features, candidates, params, scores):
    """The scorer of a seat that has none (never called)."""
    scores[:] = 0.0


@intrinsic
def borrowed(typingctx, arr):
    """``arr`` without its owner (meminfo and parent NULL): the scorer it is passed to then does no atomic
    reference counting on it.  Only for arrays that outlive the call, which every engine array does."""

    def codegen(context, builder, sig, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder, value=args[0])
        out.meminfo = cgutils.get_null_value(src.meminfo.type)
        out.parent = cgutils.get_null_value(src.parent.type)
        return out._getvalue()

    return arr(arr), codegen


_CACHE: dict[str, Any] = {}


def resolve(spec: Any, key: str = "function") -> Any:
    """The checked dispatcher for ``spec``: a ``"module:function"`` path or an ``@njit`` function.

    BadInput ``key`` when the path cannot be imported, is not a numba function, or does not compile for
    ``SIGNATURE`` with no return value -- all before any game is played.
    """
    if isinstance(spec, str):
        if spec in _CACHE:
            return _CACHE[spec]
        module, sep, name = spec.partition(":")
        if not sep or not module or not name:
            raise BadInput(key, f"got {spec!r}; allowed: \"module:function\", e.g. \"my_bots:greedy\"")
        try:
            fn: Any = importlib.import_module(module)
            for part in name.split("."):
                fn = getattr(fn, part)
        except ImportError as e:
            raise BadInput(key, f"cannot import module {module!r} ({e}); allowed: a module on sys.path") from None
        except AttributeError:
            raise BadInput(key, f"module {module!r} has no {name!r}") from None
    else:
        fn = spec
    if not isinstance(fn, CPUDispatcher):
        what = getattr(fn, "__name__", repr(fn))
        raise BadInput(key, f"{what} is not a numba function; allowed: an @numba.njit function "
                            f"{SIGNATURE_TEXT}")
    try:
        fn.compile(SIGNATURE.args)
    except Exception as e:  # a typing error inside the user's code, or a wrong argument count
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise BadInput(key, f"{fn.__name__} does not compile as {SIGNATURE_TEXT}: {first}") from None
    returned = fn.overloads[SIGNATURE.args].signature.return_type
    if returned != types.none:
        raise BadInput(key, f"{fn.__name__} returns {returned}; allowed: no return value (write the scores "
                            "into the scores array)")
    if isinstance(spec, str):
        _CACHE[spec] = fn
    return fn


def search_path(folder: str | os.PathLike) -> None:
    """Let ``"module:function"`` paths find modules in ``folder`` (a scenario's own folder).

    Appended, so an installed module of the same name wins; process workers started with ``spawn`` copy
    ``sys.path`` from this process.  Dask workers elsewhere need the module installed or on their path.
    """
    folder = os.path.abspath(folder)
    if folder not in sys.path:
        sys.path.append(folder)


def path_of(fn: Any) -> Any:
    """``"module:function"`` for an importable module-level function (what workers can import), else ``fn``."""
    if isinstance(fn, str):
        return fn
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if module and module != "__main__" and "<" not in name:
        try:
            if resolve(f"{module}:{name}") is fn:
                return f"{module}:{name}"
        except BadInput:
            pass
    return fn


def scorers(specs: Sequence[Any], key: str = "seats") -> tuple:
    """Four scorers for an engine call: seat ``i``'s from ``specs[i]`` (None: no scorer)."""
    if len(specs) > 4:
        raise BadInput(key, f"{len(specs)} seats; custom scorers allow at most 4")
    out = [no_scorer if s is None else resolve(s, f"{key}[{i}].params.function") for i, s in enumerate(specs)]
    return tuple(out + [no_scorer] * (4 - len(out)))


def custom_policy(function: Any, **params: Any) -> Seat:
    """A ``custom`` seat for ``simulate``, ``sweep``, ``tournament`` and ``optimize``: ``function`` (an
    ``@njit`` scorer or a ``"module:function"`` path) and its numeric ``params`` (plus an optional ``name``).

    The function is checked at once (BadInput before any game); a module-level one is kept as its
    ``"module:function"`` path, so process and Dask workers import it themselves.
    """
    resolve(function, "function")
    return Seat("custom", {"function": path_of(function), **params})


def rules_policy(rules: Sequence[Any], **params: Any) -> Seat:
    """A ``rules`` seat: an ordered list of rule tables (dicts) and its ``$params`` (plus an optional ``name``).

    The rules are checked against a game when the seat is used (they name that game's actions).
    """
    return Seat("rules", {"rules": list(rules), **params})
