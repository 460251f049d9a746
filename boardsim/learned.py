"""The ``learned`` policy: a small model, fitted to a search player's choices, that scores the candidate matrix.

At each decision a seat is asked (the decisions a ``custom`` scorer is asked, docs/policies.md), the game's
decision interface builds a feature vector ``f`` (F numbers) and a candidate matrix (one row ``c`` of C
numbers per legal action).  The model scores candidate ``i`` as

    s_i = sum_j g_j * z(c_ij) + u[cat_i],   g_j = w_j + sum_k W_jk * z(f_k)

where ``z`` standardises each number with the training data's mean and spread, clipped to +-CLIP (a column
it ignores has spread 0 and reads 0; a rare huge number, such as Art Deco's unlimited credit, stays
bounded), ``w`` weighs the candidate columns, ``W`` their products with the decision's features (so "gain
matters more late in the game" is one weight) and ``u`` is one number per category of a
candidate: the value of a categorical column (the card it hires), optionally crossed with a second one (the
kind of action: ``cat = card + stride * kind``).  The policy takes the highest score (``temperature`` 0) or samples
from ``softmax(s / temperature)``.  Features are constant within a decision, so they enter only through
their products: a softmax is unchanged by a number added to every candidate.

The model travels to the engines as one float64 vector (``pack``), the seat's scorer parameters, and is
read by one jitted scorer (``score``) that the engines call through the ``custom`` scorer's function
pointer: a new model, or new weights, never recompiles anything.

A model file is a NumPy ``.npz`` archive (``save``, ``load``) holding the weights, the
standardisation, the names of the features and columns it was fitted on, the game and player count, and a
format version; ``check`` compares it with the decision view of the table it is asked to play.
"""

from __future__ import annotations

import functools
import hashlib
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from boardsim.errors import BadInput

FORMAT = 1  # the file format's version (the ``format`` entry of a model file)
MAGIC = 40.0  # the first number of a packed model: a vector that is not one is refused by the scorer

# the packed vector's header (then f_mean, f_inv, c_mean, c_inv, w, W (C x F, row-major), u)
H_MAGIC, H_F, H_C, H_TEMPERATURE, H_CAT_COL, H_CAT_SIZE, H_SALT, H_CAT2_COL, H_CAT_STRIDE = range(9)
HEADER = 10

CLIP = 8.0
NO_CATEGORY = -(1 << 60)  # row_category: a row without one

# where the bundled models live (``learned`` with no ``model`` plays the one for the game and player count)
BUNDLED = Path(__file__).resolve().parent / "models"


@dataclass
class Model:
    """A fitted ``learned`` model and what it was fitted on."""

    game: str
    players: int
    features: tuple[str, ...]  # the decision features, in the order of the engine's feature vector
    columns: tuple[str, ...]  # the candidate columns, in the engine's order
    f_mean: np.ndarray  # (F,)
    f_inv: np.ndarray  # (F,) 1 / spread; 0 for a feature the model ignores
    c_mean: np.ndarray  # (C,)
    c_inv: np.ndarray  # (C,)
    w: np.ndarray  # (C,) weights of the standardised columns
    W: np.ndarray  # (C, F) weights of their products with the standardised features
    u: np.ndarray  # (K,) one weight per value of the categorical column (empty without one)
    cat_col: int = -1  # the categorical candidate column (-1: none)
    cat2_col: int = -1  # a second one crossed with it (-1: none): category = cat + cat_stride * cat2
    cat_stride: int = 0
    info: dict[str, Any] = field(default_factory=dict)  # provenance: teacher, games, round, seed...

    @property
    def n_weights(self) -> int:
        return int(self.w.size + self.W.size + self.u.size)

    def weights(self) -> np.ndarray:
        """Every weight as one vector (w, W row-major, u): what the fit optimises."""
        return np.concatenate([self.w, self.W.ravel(), self.u])

    def with_weights(self, theta: np.ndarray) -> Model:
        C, F = self.W.shape
        K = self.u.size
        theta = np.asarray(theta, dtype=np.float64)
        return Model(self.game, self.players, self.features, self.columns, self.f_mean, self.f_inv,
                     self.c_mean, self.c_inv, theta[:C].copy(), theta[C:C + C * F].reshape(C, F).copy(),
                     theta[C + C * F:C + C * F + K].copy(), self.cat_col, self.cat2_col, self.cat_stride,
                     dict(self.info))

    def digest(self) -> str:
        """A short digest of the weights and standardisation (labels, the scorer's noise salt)."""
        h = hashlib.sha256()
        for a in (self.f_mean, self.f_inv, self.c_mean, self.c_inv, self.w, self.W, self.u):
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
        h.update(repr((self.game, self.players, self.features, self.columns, self.cat_col, self.cat2_col,
                       self.cat_stride)).encode())
        return h.hexdigest()[:12]


def zero_model(game: str, players: int, features: Sequence[str], columns: Sequence[str], cat_col: int = -1,
               cat_size: int = 0, cat2_col: int = -1, cat2_size: int = 1) -> Model:
    """A model with every weight 0 (it scores every candidate alike: the first one is taken).  ``cat_size``
    values of ``cat_col``, crossed with ``cat2_size`` values of ``cat2_col`` when there is one."""
    F, C = len(features), len(columns)
    K = 0 if cat_col < 0 else cat_size * (cat2_size if cat2_col >= 0 else 1)
    return Model(game, players, tuple(features), tuple(columns), np.zeros(F), np.zeros(F), np.zeros(C),
                 np.zeros(C), np.zeros(C), np.zeros((C, F)), np.zeros(K), cat_col,
                 cat2_col if cat_col >= 0 else -1, cat_size if cat_col >= 0 and cat2_col >= 0 else 0)


def categories(candidates: np.ndarray, model: Model) -> np.ndarray:
    """Each candidate row's category (index into ``u``; -1: none), as the scorer computes it."""
    n = candidates.shape[0]
    if model.cat_col < 0:
        return np.full(n, -1, dtype=np.int64)
    v = candidates[:, model.cat_col].astype(np.int64)
    ok = v >= 0
    if model.cat2_col >= 0:
        ok &= v < model.cat_stride
        v = v + model.cat_stride * candidates[:, model.cat2_col].astype(np.int64)
    return np.where(ok & (v >= 0) & (v < model.u.size), v, -1)


# -- the packed vector and the jitted scorer ----------------------------------------------------------------
def pack(model: Model, temperature: float = 0.0) -> np.ndarray:
    """The model as the float64 vector the scorer reads (the seat's scorer parameters)."""
    F, C, K = len(model.features), len(model.columns), model.u.size
    head = np.zeros(HEADER)
    head[H_MAGIC] = MAGIC
    head[H_F], head[H_C] = F, C
    head[H_TEMPERATURE] = temperature
    head[H_CAT_COL], head[H_CAT_SIZE] = model.cat_col, K
    head[H_SALT] = int(model.digest()[:8], 16) % 1_000_003
    head[H_CAT2_COL], head[H_CAT_STRIDE] = model.cat2_col, model.cat_stride
    return np.concatenate([head, model.f_mean, model.f_inv, model.c_mean, model.c_inv, model.w,
                           model.W.ravel(), model.u]).astype(np.float64)


@njit(cache=True, nogil=True)
def _mix(h):
    """splitmix64's finaliser: a well-spread 64-bit hash of ``h``."""
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


@njit(cache=True, nogil=True)
def _noise_key(features, candidates, salt):
    """A hash of the whole decision view: the seed of a temperature > 0 draw (the scorer has no generator of its
    own, so the same position always gets the same draw, and the draw is the same on any thread or chunk)."""
    h = np.uint64(salt) + np.uint64(0x9E3779B97F4A7C15)
    for k in range(features.shape[0]):
        h = _mix(h ^ np.uint64(np.int64(features[k] * 1024.0) & np.int64(0x7FFFFFFFFFFFFFFF)))
    for i in range(candidates.shape[0]):
        for j in range(candidates.shape[1]):
            h = _mix(h ^ np.uint64(np.int64(candidates[i, j] * 1024.0) & np.int64(0x7FFFFFFFFFFFFFFF)))
    return h


@njit(cache=True, nogil=True)
def logits(features, candidates, params, scores):
    """The model's score of every candidate (``s_i`` in the module docstring) into ``scores``."""
    F = int(params[H_F])
    C = int(params[H_C])
    cat = int(params[H_CAT_COL])
    K = int(params[H_CAT_SIZE])
    o_fm = HEADER
    o_fi = o_fm + F
    o_cm = o_fi + F
    o_ci = o_cm + C
    o_w = o_ci + C
    o_W = o_w + C
    o_u = o_W + C * F
    nf = min(F, features.shape[0])
    nc = min(C, candidates.shape[1])
    n = candidates.shape[0]
    for i in range(n):
        scores[i] = 0.0
    for j in range(nc):
        inv = params[o_ci + j]
        if inv == 0.0:
            continue
        g = params[o_w + j]
        row = o_W + j * F
        for k in range(nf):
            fi = params[o_fi + k]
            if fi != 0.0:
                g += params[row + k] * min(max((features[k] - params[o_fm + k]) * fi, -CLIP), CLIP)
        mean = params[o_cm + j]
        for i in range(n):
            scores[i] += g * min(max((candidates[i, j] - mean) * inv, -CLIP), CLIP)
    if cat >= 0 and cat < candidates.shape[1]:
        cat2 = int(params[H_CAT2_COL])
        stride = int(params[H_CAT_STRIDE])
        for i in range(n):
            v = int(candidates[i, cat])
            if v < 0 or (cat2 >= 0 and v >= stride):  # no category (FlipToons' pass has no card)
                continue
            if cat2 >= 0 and cat2 < candidates.shape[1]:
                v += stride * int(candidates[i, cat2])
            if v < K:
                scores[i] += params[o_u + v]


@njit(cache=True, nogil=True, inline="always")
def column_weights(features, params, g):
    """Each candidate column's weight at this decision, ``g_j`` of the module docstring, into ``g`` (0 for a
    column the model ignores), summed in the order ``logits`` sums it, one column at a time: the plain
    statement of what ``dense_weights`` computes faster (the engines use that one; the tests hold the two
    equal)."""
    F = int(params[H_F])
    C = int(params[H_C])
    o_fi = HEADER + F
    o_ci = o_fi + F + C
    o_w = o_ci + C
    o_W = o_w + C
    nf = min(F, features.shape[0])
    for j in range(min(C, g.shape[0])):
        g[j] = 0.0
        if params[o_ci + j] == 0.0:
            continue
        gj = params[o_w + j]
        row = o_W + j * F
        for k in range(nf):
            fi = params[o_fi + k]
            if fi != 0.0:
                gj += params[row + k] * min(max((features[k] - params[HEADER + k]) * fi, -CLIP), CLIP)
        g[j] = gj


LANES = 8  # the column weights ``dense_weights`` sums in registers: models of up to 8 candidate columns


def lane_tables(params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The packed model ``params`` as ``dense_weights`` reads it: ``lw`` (1 + F, LANES), the column weights ``w``
    and then, per feature, its products' weights ``W[:, k]`` over the lanes (0 for a column or a feature the
    model ignores, and beyond its C columns), and ``lz`` (2, F), the features' means and 1 / spreads."""
    F, C = int(params[H_F]), int(params[H_C])
    if C > LANES:
        raise ValueError(f"a model of {C} candidate columns; dense_weights sums at most {LANES}")
    o_fi = HEADER + F
    o_ci = o_fi + F + C
    f_inv, c_inv = params[o_fi:o_fi + F], params[o_ci:o_ci + C]
    w, W = params[o_ci + C:o_ci + 2 * C], params[o_ci + 2 * C:o_ci + 2 * C + C * F].reshape(C, F)
    lw = np.zeros((1 + F, LANES))
    lw[0, :C] = np.where(c_inv != 0.0, w, 0.0)
    lw[1:, :C] = np.where((f_inv != 0.0)[:, None] & (c_inv != 0.0)[None, :], W.T, 0.0)
    return lw, np.stack([params[HEADER:o_fi], f_inv])


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def dense_weights(features, lw, lz, z, g):
    """``column_weights`` from ``lane_tables``, as numbers (a weight of 0 may differ in its sign only), faster: each
    feature is standardised once rather than once per column, and a feature's products are added to every
    column's weight in turn, in registers, so each weight sums its terms in ``column_weights``' order (an
    ignored feature adds 0).  An engine that asks a model at every decision (Art Deco's) scores its rows
    with these and ``row_score``."""
    F = lz.shape[1]
    for k in range(F):
        z[k] = min(max((features[k] - lz[0, k]) * lz[1, k], -CLIP), CLIP)
    g0, g1, g2, g3 = lw[0, 0], lw[0, 1], lw[0, 2], lw[0, 3]
    g4, g5, g6, g7 = lw[0, 4], lw[0, 5], lw[0, 6], lw[0, 7]
    for k in range(F):
        zk = z[k]
        g0 += lw[k + 1, 0] * zk
        g1 += lw[k + 1, 1] * zk
        g2 += lw[k + 1, 2] * zk
        g3 += lw[k + 1, 3] * zk
        g4 += lw[k + 1, 4] * zk
        g5 += lw[k + 1, 5] * zk
        g6 += lw[k + 1, 6] * zk
        g7 += lw[k + 1, 7] * zk
    g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7] = g0, g1, g2, g3, g4, g5, g6, g7


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def row_category(row, params):
    """The index into ``u`` of candidate ``row``'s category, as ``logits`` finds it; NO_CATEGORY: none."""
    cat = int(params[H_CAT_COL])
    if cat < 0 or cat >= row.shape[0]:
        return NO_CATEGORY
    v = int(row[cat])
    cat2 = int(params[H_CAT2_COL])
    if v < 0 or (cat2 >= 0 and v >= int(params[H_CAT_STRIDE])):
        return NO_CATEGORY
    if cat2 >= 0 and cat2 < row.shape[0]:
        v += int(params[H_CAT_STRIDE]) * int(row[cat2])
    return v if v < int(params[H_CAT_SIZE]) else NO_CATEGORY


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def column_term(params, g, j, x):
    """Column ``j``'s term of ``row_score`` for a row holding ``x`` there, and whether ``row_score`` adds it (a
    column the model ignores adds nothing)."""
    o_cm = HEADER + 2 * int(params[H_F])
    inv = params[o_cm + int(params[H_C]) + j]
    if inv == 0.0:
        return 0.0, False
    return g[j] * min(max((x - params[o_cm + j]) * inv, -CLIP), CLIP), True


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def category_weight(row, params):
    """The weight ``u`` of candidate ``row``'s category (``row_category``), and whether it has one."""
    v = row_category(row, params)
    if v == NO_CATEGORY:
        return 0.0, False
    F, C = int(params[H_F]), int(params[H_C])
    return params[HEADER + 2 * F + 3 * C + C * F + v], True


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def row_score(row, params, g):
    """The score ``logits`` gives one candidate ``row``, from ``column_weights``' (or ``dense_weights``') ``g``:
    its columns' terms in order, then its category's weight."""
    s = 0.0
    for j in range(min(int(params[H_C]), row.shape[0])):
        t, added = column_term(params, g, j, row[j])
        if added:
            s += t
    u, added = category_weight(row, params)
    if added:
        s += u
    return s


def leaves_out(params: np.ndarray, features: Sequence[int]) -> bool:
    """Whether the packed model ``params`` plays greedily (temperature 0) and reads none of ``features`` (their
    spread is 0): then its choice at a decision does not depend on them."""
    if params.shape[0] < HEADER or params[H_MAGIC] != MAGIC or params[H_TEMPERATURE] != 0.0:
        return False
    F = int(params[H_F])
    return all(k < F and params[HEADER + F + k] == 0.0 for k in features)


@njit(cache=True, nogil=True)
def score(features, candidates, params, scores):
    """The ``learned`` policy's scorer (the custom-scorer signature): the model's scores at temperature 0, and
    ``s / temperature`` plus Gumbel noise above it (the engine's highest score is then a draw from the
    softmax).  A vector that is not a packed model scores every candidate 0 (the first is taken)."""
    if params.shape[0] < HEADER or params[H_MAGIC] != MAGIC:
        for i in range(candidates.shape[0]):
            scores[i] = 0.0
        return
    logits(features, candidates, params, scores)
    t = params[H_TEMPERATURE]
    if t > 0.0:
        h = _noise_key(features, candidates, params[H_SALT])
        for i in range(candidates.shape[0]):
            h = _mix(h + np.uint64(i + 1))
            u = ((h >> np.uint64(11)) + np.uint64(1)) * (1.0 / 9007199254740993.0)  # in (0, 1)
            scores[i] = scores[i] / t - np.log(-np.log(u))


def standardise(features: np.ndarray, candidates: np.ndarray, model: Model) -> tuple[np.ndarray, np.ndarray]:
    """``z`` of the features and of the candidate columns (the last axis), as the scorer computes them."""
    f = np.clip((np.asarray(features, dtype=np.float64) - model.f_mean) * model.f_inv, -CLIP, CLIP)
    c = np.clip((np.asarray(candidates, dtype=np.float64) - model.c_mean) * model.c_inv, -CLIP, CLIP)
    return f, c


def softmax_reference(features: np.ndarray, candidates: np.ndarray, model: Model) -> np.ndarray:
    """The model's choice probabilities at temperature 1, in plain NumPy (the tests' reference for the scorer)."""
    f, c = standardise(features, candidates, model)
    s = c @ (model.w + model.W @ f)
    cat = categories(np.asarray(candidates, dtype=np.float64), model)
    s = s + np.where(cat >= 0, model.u[np.maximum(cat, 0)] if model.u.size else 0.0, 0.0)
    e = np.exp(s - s.max())
    return e / e.sum()


# -- files ----------------------------------------------------------------------------------------------------
def save(model: Model, path: str | os.PathLike) -> None:
    """Write ``model`` as an ``.npz`` archive, atomically (a killed write leaves the old file or none)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as fh:
        np.savez(fh, format=np.int64(FORMAT), game=np.str_(model.game), players=np.int64(model.players),
                 features=np.array(model.features, dtype=str), columns=np.array(model.columns, dtype=str),
                 f_mean=model.f_mean, f_inv=model.f_inv, c_mean=model.c_mean, c_inv=model.c_inv, w=model.w,
                 W=model.W, u=model.u, cat_col=np.int64(model.cat_col), cat2_col=np.int64(model.cat2_col),
                 cat_stride=np.int64(model.cat_stride),
                 info=np.str_(repr(sorted(model.info.items()))))
    os.replace(tmp, path)


_ENTRIES = ("format", "game", "players", "features", "columns", "f_mean", "f_inv", "c_mean", "c_inv", "w", "W",
            "u", "cat_col", "cat2_col", "cat_stride")


def load(path: str | os.PathLike, key: str = "model") -> Model:
    """A model file, checked for its own consistency; BadInput ``key`` naming the file when it is missing,
    not a model archive, of another format or with weights of the wrong shapes or not finite.  A file read
    before and unchanged since (same size and modification time) is not read again: every cell of a
    ``cards`` or ``patch`` run with a learned seat asks for the same model (about 40% of building one)."""
    path = str(path)
    if not os.path.exists(path):
        raise BadInput(key, f"no model file {path!r}; allowed: an .npz file written by `boardsim learn`")
    if os.path.isdir(path):
        raise BadInput(key, f"{path!r} is a folder; allowed: an .npz file written by `boardsim learn`")
    st = os.stat(path)
    model = _load_unchanged(path, os.path.abspath(path), st.st_mtime_ns, st.st_size, key)
    return replace(model, info=dict(model.info))  # a caller may add to its own provenance


@functools.lru_cache(maxsize=16)
def _load_unchanged(path: str, where: str, mtime_ns: int, size: int, key: str) -> Model:
    """``load``'s reading and checks, once per file version (``where``: its absolute path; the arrays are shared:
    nothing writes them)."""
    return _read(path, key)


def _read(path: str, key: str) -> Model:
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in _ENTRIES if k not in z.files]
            if missing:
                raise BadInput(key, f"{path!r} is not a boardsim model (no {', '.join(missing)}); allowed: an .npz "
                                    "file written by `boardsim learn`")
            d = {k: z[k] for k in z.files}
    except BadInput:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise BadInput(key, f"cannot read model file {path!r} ({type(e).__name__}); allowed: an .npz file "
                            "written by `boardsim learn`") from None
    if int(d["format"]) != FORMAT:
        raise BadInput(key, f"{path!r} has model format {int(d['format'])}; allowed: format {FORMAT}")
    features = tuple(str(x) for x in d["features"])
    columns = tuple(str(x) for x in d["columns"])
    F, C = len(features), len(columns)
    shapes = {"f_mean": (F,), "f_inv": (F,), "c_mean": (C,), "c_inv": (C,), "w": (C,), "W": (C, F)}
    for name, shape in shapes.items():
        if d[name].shape != shape:
            raise BadInput(key, f"{path!r}: {name} has shape {d[name].shape}, expected {shape} for {F} features "
                                f"and {C} candidate columns")
    cat_col, cat2_col, stride = int(d["cat_col"]), int(d["cat2_col"]), int(d["cat_stride"])
    if d["u"].ndim != 1 or not -1 <= cat_col < C or not -1 <= cat2_col < C or stride < 0 or (
            cat_col < 0 and d["u"].size):
        raise BadInput(key, f"{path!r}: categorical column {cat_col} with {d['u'].size} weights does not fit "
                            f"{C} candidate columns")
    arrays = {k: np.asarray(d[k], dtype=np.float64) for k in ("f_mean", "f_inv", "c_mean", "c_inv", "w", "W", "u")}
    if not all(np.isfinite(a).all() for a in arrays.values()):
        raise BadInput(key, f"{path!r}: weights that are not finite numbers")
    info: dict[str, Any] = {}
    try:
        import ast

        info = dict(ast.literal_eval(str(d["info"]))) if "info" in d else {}
    except (ValueError, SyntaxError):
        info = {}
    return Model(str(d["game"]), int(d["players"]), features, columns, arrays["f_mean"], arrays["f_inv"],
                 arrays["c_mean"], arrays["c_inv"], arrays["w"], arrays["W"], arrays["u"], cat_col, cat2_col, stride,
                 info)


def bundled_path(game: str, players: int) -> Path:
    """The bundled model of a game and player count (``boardsim/models/<game>-<players>p.npz``)."""
    return BUNDLED / f"{game}-{players}p.npz"


def resolve(spec: Any, game: str, players: int, features: Sequence[str], columns: Sequence[str],
            key: str = "model") -> Model:
    """The model a ``learned`` seat plays: ``spec`` (a path, a ``Model``, or empty for the bundled one),
    checked against the game, the player count and the decision view of the table (BadInput ``key``)."""
    if isinstance(spec, Model):
        model = spec
    elif spec in (None, ""):
        path = bundled_path(game, players)
        if not path.exists():
            have = sorted(p.stem for p in BUNDLED.glob(f"{game}-*p.npz"))
            raise BadInput(key, f"no bundled {game} model for {players} players (bundled: "
                                f"{', '.join(have) or 'none'}); allowed: a model file from `boardsim learn`")
        model = load(path, key)
    elif isinstance(spec, (str, os.PathLike)):
        model = load(spec, key)
    else:
        raise BadInput(key, f"got {spec!r}; allowed: the path of a model file written by `boardsim learn`")
    check(model, game, players, features, columns, key)
    return model


def check(model: Model, game: str, players: int, features: Sequence[str], columns: Sequence[str],
          key: str = "model") -> None:
    """BadInput ``key`` unless ``model`` was fitted for this game, player count and decision view."""
    where = f"model for {model.game}, {model.players} players"
    if model.game != game:
        raise BadInput(key, f"a {where}; allowed: a model for {game}")
    if model.players != players:
        raise BadInput(key, f"a {where}; allowed: a model for {players} players (train one with "
                            f"`boardsim learn {game} --players {players}`)")
    if tuple(model.features) != tuple(features) or tuple(model.columns) != tuple(columns):
        diff = [n for n in features if n not in model.features][:3] or [n for n in model.features
                                                                          if n not in features][:3]
        raise BadInput(key, f"a {where} fitted on another decision view ({len(model.features)} features, "
                            f"{len(model.columns)} columns; this table has {len(features)} and {len(columns)}"
                            + (f"; differs at {', '.join(diff)}" if diff else "") + "): a different card set?")
