"""Rule-list policies: conditions and amounts written as text, compiled to arrays a jitted interpreter runs.

A rule list is an ordered list of rules; each names one action of the game, an optional target or
amount, and an optional condition over the decision's named features::

    rules = [
      { bid_up_to = "value * $hard", if = "cards_held < $target" },
      { bid_up_to = "value" },
    ]

Expressions support numbers, feature names, ``$param`` parameters (numbers given beside ``rules`` in the
seat's ``params``), ``+ - * /``, unary minus, comparisons (``< <= > >= == !=``), ``and``/``or``/``not``
and parentheses.  The text is parsed with a Lark grammar (never ``eval``), checked (unknown names and
parameters, numbers where a truth value is needed and the reverse), and compiled to postfix code: one
row of ``(op, argument)`` pairs per expression.  ``evaluate`` runs such a row in Numba against a
feature vector and a parameter vector, so a new rule list, or a swept ``$param``, never recompiles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from lark import Lark, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedToken, VisitError
from numba import njit

from boardsim.errors import BadInput

GRAMMAR = r"""
?start: or_expr
?or_expr: and_expr ("or" and_expr)*
?and_expr: not_expr ("and" not_expr)*
?not_expr: "not" not_expr -> not_
         | comparison
?comparison: sum (CMP sum)?
?sum: product (ADDOP product)*
?product: unary (MULOP unary)*
?unary: "-" unary -> neg
      | atom
?atom: NUMBER -> number
     | PARAM -> param
     | NAME -> feature
     | "(" or_expr ")"
CMP: "<=" | ">=" | "==" | "!=" | "<" | ">"
ADDOP: "+" | "-"
MULOP: "*" | "/"
PARAM: "$" NAME
NAME: /(?!(and|or|not)\b)[A-Za-z_][A-Za-z0-9_]*/
NUMBER: /\d+(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?/
%ignore /[ \t\n]+/
"""
_PARSER = Lark(GRAMMAR, parser="lalr", maybe_placeholders=False)

# opcodes of the postfix code
(OP_END, OP_CONST, OP_FEATURE, OP_PARAM, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG, OP_LT, OP_LE, OP_GT, OP_GE,
 OP_EQ, OP_NE, OP_AND, OP_OR, OP_NOT) = range(18)
_BINARY = {"+": OP_ADD, "-": OP_SUB, "*": OP_MUL, "/": OP_DIV, "<": OP_LT, "<=": OP_LE, ">": OP_GT,
           ">=": OP_GE, "==": OP_EQ, "!=": OP_NE}
MAX_CODE = 64  # postfix steps per expression
STACK = 32


@dataclass(frozen=True)
class Code:
    """One compiled expression: postfix ``ops`` and their ``args``, and whether it yields a truth value."""

    ops: tuple[int, ...]
    args: tuple[float, ...]
    boolean: bool


class _Compile(Transformer):
    """Parse tree -> (ops, args, is_boolean), checking names and types on the way up."""

    def __init__(self, features: Sequence[str], params: Mapping[str, float]):
        super().__init__()
        self.features = list(features)
        self.params = list(params)

    @staticmethod
    def _need(part, boolean: bool, token: str):
        if part[2] != boolean:
            want, got = ("a truth value", "a number") if boolean else ("a number", "a truth value")
            raise _Problem(f"{token!r} needs {want} on each side, got {got}", token)
        return part

    def number(self, items):
        return [OP_CONST], [float(items[0])], False

    def feature(self, items):
        name = str(items[0])
        if name in ("true", "false"):
            return [OP_CONST], [1.0 if name == "true" else 0.0], True
        if name not in self.features:
            raise _Problem(f"unknown feature {name!r} (known: {', '.join(self.features)})", name)
        return [OP_FEATURE], [float(self.features.index(name))], False

    def param(self, items):
        name = str(items[0])[1:]
        if name not in self.params:
            known = ", ".join("$" + p for p in self.params) or "none: add numbers beside rules in params"
            raise _Problem(f"unknown parameter ${name} (known: {known})", "$" + name)
        return [OP_PARAM], [float(self.params.index(name))], False

    def neg(self, items):
        (a,) = items
        self._need(a, False, "-")
        return a[0] + [OP_NEG], a[1] + [0.0], False

    def not_(self, items):
        (a,) = items
        self._need(a, True, "not")
        return a[0] + [OP_NOT], a[1] + [0.0], True

    def _chain(self, items, boolean_in: bool, boolean_out: bool):
        out = items[0]
        rest = list(items[1:])
        while rest:
            op, right = rest.pop(0), rest.pop(0)
            token = str(op)
            self._need(out, boolean_in, token)
            self._need(right, boolean_in, token)
            out = out[0] + right[0] + [_BINARY[token]], out[1] + right[1] + [0.0], boolean_out
        return out

    def sum(self, items):
        return self._chain(items, False, False)

    def product(self, items):
        return self._chain(items, False, False)

    def comparison(self, items):
        return self._chain(items, False, True)

    def _logic(self, items, op: int, token: str):
        out = items[0]
        for right in items[1:]:
            self._need(out, True, token)
            self._need(right, True, token)
            out = out[0] + right[0] + [op], out[1] + right[1] + [0.0], True
        return out

    def and_expr(self, items):
        return self._logic(items, OP_AND, "and")

    def or_expr(self, items):
        return self._logic(items, OP_OR, "or")


class _Problem(Exception):
    def __init__(self, message: str, token: str):
        super().__init__(message)
        self.message, self.token = message, token


def compile_expression(text: str, features: Sequence[str], params: Mapping[str, float], key: str) -> Code:
    """Parse and check one expression; errors are BadInput keyed ``key`` naming the token."""
    if not isinstance(text, str) or not text.strip():
        raise BadInput(key, f"got {text!r}; allowed: an expression such as \"value * $hard\"")
    try:
        tree = _PARSER.parse(text)
        ops, args, boolean = _Compile(features, params).transform(tree)
    except VisitError as e:  # a name or type problem found while compiling
        if isinstance(e.orig_exc, _Problem):
            raise BadInput(key, f"{e.orig_exc.message} in {text!r}") from None
        raise
    except UnexpectedCharacters as e:
        raise BadInput(key, f"unexpected character {text[e.pos_in_stream]!r} at column {e.column} of "
                            f"{text!r}") from None
    except (UnexpectedEOF, UnexpectedToken) as e:
        token = getattr(e, "token", None)
        at_end = token is None or token.type == "$END"
        what = "end of text" if at_end else f"{str(token)!r} at column {token.column}"
        if text.count("(") != text.count(")"):
            what += " (unbalanced parentheses)"
        elif at_end:
            what += " (a missing operand?)"
        raise BadInput(key, f"unexpected {what} in {text!r}") from None
    except LarkError as e:  # anything else the parser rejects
        raise BadInput(key, f"cannot read {text!r}: {e}") from None
    if len(ops) > MAX_CODE:
        raise BadInput(key, f"{text!r} is too long ({len(ops)} steps; allowed: at most {MAX_CODE})")
    return Code(tuple(ops), tuple(args), boolean)


def pack(codes: Sequence[Code | None]) -> tuple[np.ndarray, np.ndarray]:
    """Codes as two (n, MAX_CODE + 1) arrays, ops (int64) and args (float64); None is an always-true rule."""
    ops = np.zeros((len(codes), MAX_CODE + 1), dtype=np.int64)
    args = np.zeros((len(codes), MAX_CODE + 1), dtype=np.float64)
    for i, code in enumerate(codes):
        if code is None:
            ops[i, 0], args[i, 0] = OP_CONST, 1.0
            continue
        ops[i, : len(code.ops)] = code.ops
        args[i, : len(code.args)] = code.args
    return ops, args


@njit(cache=True, nogil=True)
def evaluate(ops, args, row, features, params, stack):
    """Run the postfix code in row ``row`` of ``ops``/``args``; truth values are 1.0 and 0.0.

    ``stack`` is caller-owned scratch of length ``STACK`` (no allocation per decision).
    """
    top = 0
    for k in range(ops.shape[1]):
        op = ops[row, k]
        if op == OP_END:
            break
        if op == OP_CONST:
            stack[top] = args[row, k]
            top += 1
        elif op == OP_FEATURE:
            stack[top] = features[int(args[row, k])]
            top += 1
        elif op == OP_PARAM:
            stack[top] = params[int(args[row, k])]
            top += 1
        elif op == OP_NEG:
            stack[top - 1] = -stack[top - 1]
        elif op == OP_NOT:
            stack[top - 1] = 1.0 if stack[top - 1] == 0.0 else 0.0
        else:
            b = stack[top - 1]
            a = stack[top - 2]
            top -= 1
            if op == OP_ADD:
                r = a + b
            elif op == OP_SUB:
                r = a - b
            elif op == OP_MUL:
                r = a * b
            elif op == OP_DIV:
                r = a / b if b != 0.0 else 0.0
            elif op == OP_LT:
                r = 1.0 if a < b else 0.0
            elif op == OP_LE:
                r = 1.0 if a <= b else 0.0
            elif op == OP_GT:
                r = 1.0 if a > b else 0.0
            elif op == OP_GE:
                r = 1.0 if a >= b else 0.0
            elif op == OP_EQ:
                r = 1.0 if a == b else 0.0
            elif op == OP_NE:
                r = 1.0 if a != b else 0.0
            elif op == OP_AND:
                r = 1.0 if (a != 0.0 and b != 0.0) else 0.0
            else:  # OP_OR
                r = 1.0 if (a != 0.0 or b != 0.0) else 0.0
            stack[top - 1] = r
    return stack[0] if top > 0 else 0.0



# -- rule lists: one policy's ordered rules ------------------------------------------------------------
MAX_PARAMS = 16  # $params per seat
NOT_PARAMS = ("rules", "name", "function")  # seat params that are not $params


@dataclass(frozen=True)
class Action:
    """One action a rule can name.

    ``kind`` is ``target`` (the rule's value is one of ``targets``: a card name, or an attribute such as
    ``best_gain`` that picks among the legal candidates), ``amount`` (the value is an expression, e.g. a
    reservation price), or ``flag`` (the value is ``true``: the action needs nothing more).
    """

    name: str
    kind: str
    doc: str
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    """A compiled rule: action index, target index (-1 for none), condition and amount (None: absent)."""

    action: int
    target: int
    cond: Code | None
    amount: Code | None


class RuleArrays(NamedTuple):
    """Every seat's rules as arrays the engines read.

    Rule ``r`` has its condition in code row ``2r`` and its amount in row ``2r + 1``; ``meta[r]`` is
    (action, target); seat ``s`` owns rules ``span[s, 0] <= r < span[s, 1]`` and reads ``params[s]``.
    """

    ops: np.ndarray
    args: np.ndarray
    meta: np.ndarray
    span: np.ndarray
    params: np.ndarray


def rule_params(seat_params: Mapping[str, Any], declared: Sequence[str] = ()) -> dict[str, float]:
    """The ``$params`` of a rules or custom seat, sorted by name: its parameters other than rules, name,
    function and the ``declared`` options of its policy (such as a placement choice)."""
    return {k: float(v) for k, v in sorted(seat_params.items()) if k not in NOT_PARAMS and k not in declared}


def compile_rules(rules: Any, actions: Sequence[Action], features: Sequence[str], params: Mapping[str, float],
                  key: str) -> list[Rule]:
    """Check and compile a rule list (a list of tables); errors are BadInput keyed ``key[i].<field>``."""
    names = [a.name for a in actions]
    shape = "a list of rules such as { " + _example(actions[0]) + ', if = "round <= 8" }'
    if not isinstance(rules, (list, tuple)) or not rules:
        raise BadInput(key, f"got {rules!r}; allowed: {shape}")
    if len(params) > MAX_PARAMS:
        raise BadInput(key, f"{len(params)} $params; allowed: at most {MAX_PARAMS}")
    out = []
    for i, item in enumerate(rules):
        at = f"{key}[{i}]"
        if not isinstance(item, Mapping):
            raise BadInput(at, f"got {item!r}; allowed: a table with one action ({', '.join(names)}) and "
                               "an optional if")
        unknown = [k for k in item if k not in names and k != "if"]
        if unknown:
            raise BadInput(f"{at}.{unknown[0]}", f"unknown action {unknown[0]!r} (known: {', '.join(names)}; "
                                                 "and if for a condition)")
        given = [k for k in item if k in names]
        if len(given) != 1:
            raise BadInput(at, f"got {len(given)} actions ({', '.join(given) or 'none'}); allowed: exactly one "
                               f"of {', '.join(names)}")
        act = actions[names.index(given[0])]
        value = item[act.name]
        cond = compile_expression(item["if"], features, params, f"{at}.if") if "if" in item else None
        if cond is not None and not cond.boolean:
            raise BadInput(f"{at}.if", f"{item['if']!r} is a number; allowed: a condition such as \"round <= 8\"")
        target, amount = -1, None
        if act.kind == "target":
            if not isinstance(value, str) or value not in act.targets:
                raise BadInput(f"{at}.{act.name}", f"got {value!r}; allowed: one of {', '.join(act.targets)}")
            target = act.targets.index(value)
        elif act.kind == "amount":
            amount = compile_expression(value, features, params, f"{at}.{act.name}")
            if amount.boolean:
                raise BadInput(f"{at}.{act.name}", f"{value!r} is a truth value; allowed: a number such as "
                                                   "\"value * $hard\"")
        elif value is not True:
            raise BadInput(f"{at}.{act.name}", f"got {value!r}; allowed: true")
        out.append(Rule(names.index(act.name), target, cond, amount))
    return out


def _example(action: Action) -> str:
    if action.kind == "target":
        return f"{action.name} = {action.targets[0]!r}".replace("'", '"')
    return f'{action.name} = "value"' if action.kind == "amount" else f"{action.name} = true"


def pack_seats(per_seat: Sequence[Sequence[Rule] | None], params: Sequence[Mapping[str, float] | np.ndarray | None]
               ) -> RuleArrays:
    """Every seat's rules (None for a seat without rules) as one ``RuleArrays``.

    A seat's parameters are its ``$params`` by name, or a vector (a ``learned`` seat's packed model): the
    ``params`` matrix is as wide as the longest, at least MAX_PARAMS (a wider matrix is the same type to the
    engines, so it never recompiles them)."""
    vectors = [np.asarray(list(p.values()) if isinstance(p, Mapping) else p, dtype=np.float64).ravel()
               if p is not None else np.zeros(0) for p in params]
    rules = [r for seat in per_seat for r in (seat or ())]
    codes: list[Code | None] = []
    for r in rules:
        codes += [r.cond, r.amount]
    if not codes:  # fixed shapes even with no rules at all: one unused always-true row pair
        codes = [None, None]
    ops, args = pack(codes)
    meta = np.array([[r.action, r.target] for r in rules] or [[0, -1]], dtype=np.int64)
    span = np.zeros((len(per_seat), 2), dtype=np.int64)
    values = np.zeros((len(per_seat), max([MAX_PARAMS] + [v.size for v in vectors])), dtype=np.float64)
    start = 0
    for s, seat in enumerate(per_seat):
        span[s] = start, start + len(seat or ())
        start += len(seat or ())
        values[s, : vectors[s].size] = vectors[s]
    return RuleArrays(ops, args, meta, span, values)


@njit(cache=True, nogil=True)
def condition(rl, r, features, seat, stack):
    """Whether rule ``r``'s condition holds (a rule without one always holds)."""
    return evaluate(rl.ops, rl.args, 2 * r, features, rl.params[seat], stack) != 0.0


@njit(cache=True, nogil=True)
def amount(rl, r, features, seat, stack):
    """Rule ``r``'s amount expression evaluated for ``seat``."""
    return evaluate(rl.ops, rl.args, 2 * r + 1, features, rl.params[seat], stack)


# The interpreter as an engine's hot loop calls it: inlined into the caller and without reference counting of
# its array arguments.  As a call of its own it counted five arrays in and out at every evaluation, which made
# Art Deco's interpreted rule lists several times slower than the work itself.
# (Under NUMBA_DISABLE_JIT=1 ``evaluate`` is the plain function and has no ``py_func``.)
evaluate_inline = njit(nogil=True, inline="always", _nrt=False)(getattr(evaluate, "py_func", evaluate))
