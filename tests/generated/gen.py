#!/usr/bin/env python3
"""Writes the generated-model test suite (tests/generated, suite 'generated').

Each model is drawn from a random tree (fixed seeds: model i of base seed S is
always the same model, whatever the model count) and written out twice:

  * as a fluxion model (`gNNNN::mdl`), covering every node kind: states and
    parameters shaped over zero, one and two index spaces (parameters also over
    one space twice), aliases (shaped, read at variables, shifted variables and
    fixed elements), shifted reads of states and parameters, reductions (sum,
    prod, min, max, nested, over any space), stage transport on ordered spaces
    (rates shaped or not, reading states or not), independent and coupled
    groups, fx::where with value comparisons (<, <=, >, >=, equal, not_equal),
    conditions on indices (k == 0, k > 0, p != q), &&, ||, !, every math
    function, time, named constants, observables, reductions that rebind a
    variable bound outside them (shadowing), and the identities fluxion
    simplifies (0 x, 1 x, x + 0, x / 1, pow(x, 1), pow(x, 0), x - x);
  * as a plain scalar C++ reference (`gNNNN::ref<T>`), element by element with
    explicit loops, reading flat arrays in fluxion's documented symbol-major
    layout (declaration order, row-major, last index fastest). The reference
    never includes fluxion; its few helpers (gen::where, gen::lt, ...) are in
    tests/generated/support.hpp.

Every model is valid: fixed elements lie in their space, every index variable
is bound, an fx::independent group is declared only where no equation of a
state shaped over its space reads another element of it (checked here, through
aliases, reductions, shifts, fixed elements and transport, with the binding of
each variable tracked exactly), and every value stays in a moderate range (an
interval bound is kept for each subexpression: arguments of log, sqrt, real
powers and negative integer powers are positive, denominators too, exp
arguments small).

Usage (Meson runs it at build time, see meson.build):
  gen.py --out DIR [--models N] [--per-tu K] [--seed S] [--no-index-conditions]
  gen.py --list-outputs --models N --per-tu K      (the file names, for Meson)
  gen.py --show I [--seed S]                       (print model I's fluxion source)
  gen.py --stats [--models N]                      (node-kind coverage)

Environment (read by meson.build at configure time, defaults in brackets):
  FLUXION_GENERATED_MODELS [200], FLUXION_GENERATED_SEED [1],
  FLUXION_GENERATED_PER_TU [25].
"""
import argparse
import math
import os
import random
import sys

EXTRA_EVERY = 3  # the second executable (GEN_EXTRA) checks models 0, 3, 6, ...
MAXV = 30.0  # bound on |value| of every generated subexpression
STATE_LO, STATE_HI = 0.5, 2.0  # states and parameters are drawn in this range (support.hpp)
TIME_LO, TIME_HI = 0.1, 2.0


# ----------------------------------------------------------------------------------
# intervals


def iv_hull(*ivs):
    return (min(i[0] for i in ivs), max(i[1] for i in ivs))


def iv_add(a, b):
    return (a[0] + b[0], a[1] + b[1])


def iv_sub(a, b):
    return (a[0] - b[1], a[1] - b[0])


def iv_mul(a, b):
    c = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return (min(c), max(c))


def iv_div(a, b):
    assert b[0] > 0
    return iv_mul(a, (1.0 / b[1], 1.0 / b[0]))


def iv_powi(a, n):
    if n < 0:
        assert a[0] > 0
        return iv_powi((1.0 / a[1], 1.0 / a[0]), -n)
    if n % 2 == 1:
        return (a[0] ** n, a[1] ** n)
    lo = 0.0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1])) ** n
    return (lo, max(abs(a[0]), abs(a[1])) ** n)


def iv_powr(a, b):
    assert a[0] > 0
    c = [a[i] ** b[j] for i in (0, 1) for j in (0, 1)]
    return (min(c), max(c))


def iv_abs(a):
    if a[0] >= 0:
        return a
    if a[1] <= 0:
        return (-a[1], -a[0])
    return (0.0, max(-a[0], a[1]))


def iv_ok(a):
    return -MAXV <= a[0] and a[1] <= MAXV


# ----------------------------------------------------------------------------------
# model pieces


class Space:
    def __init__(self, name, extent, ordered):
        self.name, self.extent, self.ordered = name, extent, ordered
        self.cpp = "s" + name
        self.vars = [Var(self, i) for i in range(3)]

    def decl(self):
        order = ", fx::ordered" if self.ordered else ""
        return f'using {self.cpp} = fx::index<"{self.name}", {self.extent}{order}>;'


class Var:
    def __init__(self, space, vid):
        self.space, self.vid = space, vid
        self.fx = f"{space.name}{vid}"
        self.r = f"i_{space.name}{vid}"

    def decl(self):
        return f'constexpr fx::ivar<{self.space.cpp}, {self.vid}, "{self.fx}"> {self.fx};'


class Sym:
    """A state, parameter, alias or observable."""

    def __init__(self, kind, name, spaces):
        self.kind, self.name, self.spaces = kind, name, spaces
        self.offset = 0
        self.body = None  # aliases
        self.vars = []  # aliases: shape variables (free variables of the body, in order)

    @property
    def size(self):
        n = 1
        for s in self.spaces:
            n *= s.extent
        return n

    def decl(self):
        kind = {"state": "state", "param": "param"}[self.kind]
        sp = "".join(", " + s.cpp for s in self.spaces)
        return f'constexpr fx::{kind}<"{self.name}"{sp}> {self.name};'


class Idx:
    """An index as written: a variable with a shift, or a fixed element."""

    def __init__(self, var=None, shift=0, fixed=None):
        self.var, self.shift, self.fixed = var, shift, fixed

    def fx(self):
        if self.var is None:
            return str(self.fixed)
        if self.shift == 0:
            return self.var.fx
        return f"{self.var.fx} {'+' if self.shift > 0 else '-'} {abs(self.shift)}"

    def r(self):
        if self.var is None:
            return str(self.fixed)
        if self.shift == 0:
            return self.var.r
        return f"({self.var.r} {'+' if self.shift > 0 else '-'} {abs(self.shift)})"

    def vars(self):
        return [] if self.var is None else [self.var]


def uniq(vs):
    out = []
    for v in vs:
        if v not in out:
            out.append(v)
    return out


# ----------------------------------------------------------------------------------
# expressions: fx() is fluxion source, r() the reference's C++, fv() the free
# index variables in fluxion's order of first appearance, iv the value interval.


class Node:
    kids = ()

    def walk(self):
        yield self
        for k in self.kids:
            yield from k.walk()


class Num(Node):
    def __init__(self, v):
        self.v = float(v)
        self.iv = (self.v, self.v)

    def fx(self):
        s = repr(self.v)
        return f"({s})" if self.v < 0 else s

    def r(self):
        return f"T({repr(self.v)})"

    def fv(self):
        return []


class Const(Node):
    def __init__(self, name, v):
        self.name, self.v = name, v
        self.iv = (v, v)

    def fx(self):
        return self.name

    def r(self):
        return f"T({repr(self.v)})"

    def fv(self):
        return []


class Time(Node):
    iv = (TIME_LO, TIME_HI)

    def fx(self):
        return "fx::t"

    def r(self):
        return "t"

    def fv(self):
        return []


class Read(Node):
    def __init__(self, sym, idx):
        self.sym, self.idx = sym, idx
        shifted = any(i.var is not None and i.shift != 0 for i in idx)
        if sym.kind == "alias":
            base = sym.body.iv
        else:
            base = (STATE_LO, STATE_HI)
        self.iv = iv_hull(base, (0.0, 0.0)) if shifted else base

    def fx(self):
        if not self.idx:
            return self.sym.name
        return f"{self.sym.name}({', '.join(i.fx() for i in self.idx)})"

    def flat_r(self):
        terms = []
        stride = 1
        spaces = self.sym.spaces
        for k in range(len(spaces) - 1, -1, -1):
            terms.append(f"{self.idx[k].r()} * {stride}" if stride != 1 else self.idx[k].r())
            stride *= spaces[k].extent
        return " + ".join(reversed(terms)) if terms else "0"

    def r(self):
        flat = self.flat_r()
        if self.sym.kind == "state":
            base = f"x[{self.sym.offset} + {flat}]"
        elif self.sym.kind == "param":
            base = f"p[{self.sym.offset} + {flat}]"
        else:
            base = f"gen::alias_read(al_{self.sym.name}[{flat}])"
        conds = []
        for i, s in zip(self.idx, self.sym.spaces):
            if i.var is not None and i.shift != 0:
                conds.append(f"{i.r()} >= 0 && {i.r()} < {s.extent}")
        if conds:
            return f"(({' && '.join(conds)}) ? T({base}) : T(0))"
        return f"T({base})"

    def fv(self):
        return uniq([v for i in self.idx for v in i.vars()])


UNARY_FX = {"neg": None, "exp": "fx::exp", "log": "fx::log", "sqrt": "fx::sqrt", "sin": "fx::sin",
            "cos": "fx::cos", "tanh": "fx::tanh", "abs": "fx::abs"}


class Unary(Node):
    def __init__(self, op, a):
        self.op, self.a = op, a
        self.kids = (a,)
        lo, hi = a.iv
        if op == "neg":
            self.iv = (-hi, -lo)
        elif op == "exp":
            self.iv = (math.exp(lo), math.exp(hi))
        elif op == "log":
            assert lo > 0
            self.iv = (math.log(lo), math.log(hi))
        elif op == "sqrt":
            assert lo > 0
            self.iv = (math.sqrt(lo), math.sqrt(hi))
        elif op in ("sin", "cos"):
            self.iv = (-1.0, 1.0)
        elif op == "tanh":
            self.iv = (math.tanh(lo), math.tanh(hi))
        elif op == "abs":
            self.iv = iv_abs(a.iv)
        else:
            raise ValueError(op)

    def fx(self):
        if self.op == "neg":
            return f"-({self.a.fx()})"
        return f"{UNARY_FX[self.op]}({self.a.fx()})"

    def r(self):
        if self.op == "neg":
            return f"(-({self.a.r()}))"
        return f"gen::{self.op}({self.a.r()})"

    def fv(self):
        return self.a.fv()


class Bin(Node):
    """+ - * / min max pow(real)."""

    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b
        self.kids = (a, b)
        if op == "+":
            self.iv = iv_add(a.iv, b.iv)
        elif op == "-":
            self.iv = iv_sub(a.iv, b.iv)
        elif op == "*":
            self.iv = iv_mul(a.iv, b.iv)
        elif op == "/":
            self.iv = iv_div(a.iv, b.iv)
        elif op == "min":
            self.iv = (min(a.iv[0], b.iv[0]), min(a.iv[1], b.iv[1]))
        elif op == "max":
            self.iv = (max(a.iv[0], b.iv[0]), max(a.iv[1], b.iv[1]))
        elif op == "pow":
            self.iv = iv_powr(a.iv, b.iv)
        else:
            raise ValueError(op)

    def fx(self):
        if self.op in ("min", "max", "pow"):
            return f"fx::{self.op}({self.a.fx()}, {self.b.fx()})"
        return f"({self.a.fx()} {self.op} {self.b.fx()})"

    def r(self):
        if self.op == "min":
            return f"gen::min2({self.a.r()}, {self.b.r()})"
        if self.op == "max":
            return f"gen::max2({self.a.r()}, {self.b.r()})"
        if self.op == "pow":
            return f"gen::powr({self.a.r()}, {self.b.r()})"
        return f"({self.a.r()} {self.op} {self.b.r()})"

    def fv(self):
        return uniq(self.a.fv() + self.b.fv())


class PowI(Node):
    def __init__(self, a, n):
        self.a, self.n = a, n
        self.kids = (a,)
        self.iv = iv_powi(a.iv, n)

    def fx(self):
        return f"fx::pow({self.a.fx()}, {self.n})"

    def r(self):
        return f"gen::powi<{self.n}>({self.a.r()})"

    def fv(self):
        return self.a.fv()


class Where(Node):
    def __init__(self, c, a, b):
        self.c, self.a, self.b = c, a, b
        self.kids = (c, a, b)
        self.iv = iv_hull(a.iv, b.iv)

    def fx(self):
        return f"fx::where({self.c.fx()}, {self.a.fx()}, {self.b.fx()})"

    def r(self):
        return f"gen::where({self.c.r()}, {self.a.r()}, {self.b.r()})"

    def fv(self):
        return uniq(self.c.fv() + self.a.fv() + self.b.fv())


CMP_FX = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "eq": "fx::equal", "ne": "fx::not_equal"}
CMP_R = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "eq": "eq", "ne": "ne"}


class Cmp(Node):
    """A comparison of values."""

    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b
        self.kids = (a, b)

    def fx(self):
        if self.op in ("eq", "ne"):
            return f"{CMP_FX[self.op]}({self.a.fx()}, {self.b.fx()})"
        return f"({self.a.fx()} {self.op} {self.b.fx()})"

    def r(self):
        return f"gen::{CMP_R[self.op]}({self.a.r()}, {self.b.r()})"

    def fv(self):
        return uniq(self.a.fv() + self.b.fv())


IDX_OPS = {"eq": "==", "ne": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class IdxCmp(Node):
    """A condition on indices (k == 0, k - 1 >= 0, p != q)."""

    def __init__(self, op, i, j):
        self.op, self.i, self.j = op, i, j

    def fx(self):
        a = self.i.fx() if self.i.shift == 0 or self.i.var is None else f"({self.i.fx()})"
        b = self.j.fx() if self.j.shift == 0 or self.j.var is None else f"({self.j.fx()})"
        return f"({a} {IDX_OPS[self.op]} {b})"

    def r(self):
        return f"gen::icond<T>({self.i.r()} {IDX_OPS[self.op]} {self.j.r()})"

    def fv(self):
        return uniq(self.i.vars() + self.j.vars())


class Logic(Node):
    def __init__(self, op, a, b=None):
        self.op, self.a, self.b = op, a, b
        self.kids = (a,) if b is None else (a, b)

    def fx(self):
        if self.op == "!":
            return f"!{self.a.fx()}"
        return f"({self.a.fx()} {self.op} {self.b.fx()})"

    def r(self):
        if self.op == "!":
            return f"gen::lnot({self.a.r()})"
        return f"gen::{'land' if self.op == '&&' else 'lor'}({self.a.r()}, {self.b.r()})"

    def fv(self):
        return self.a.fv() if self.b is None else uniq(self.a.fv() + self.b.fv())


class Reduce(Node):
    counter = 0

    def __init__(self, op, var, body):
        self.op, self.var, self.body = op, var, body
        self.kids = (body,)
        n = var.space.extent
        lo, hi = body.iv
        if op == "sum":
            self.iv = (n * lo, n * hi)
        elif op == "prod":
            iv = body.iv
            for _ in range(n - 1):
                iv = iv_mul(iv, body.iv)
            self.iv = iv
        else:
            self.iv = body.iv
        Reduce.counter += 1
        self.uid = Reduce.counter

    def fx(self):
        return f"fx::{self.op}({self.var.fx}, {self.body.fx()})"

    def r(self):
        u = self.uid
        comb = {"sum": "r_sum", "prod": "r_prod", "min": "r_min", "max": "r_max"}[self.op]
        v = self.var.r
        return (f"([&]() -> T {{ T acc{u} = T(0); for (int {v} = 0; {v} < {self.var.space.extent}; ++{v}) {{ "
                f"const T e{u} = {self.body.r()}; acc{u} = {v} == 0 ? e{u} : gen::{comb}(acc{u}, e{u}); }} "
                f"return acc{u}; }}())")

    def fv(self):
        return [v for v in self.body.fv() if v is not self.var]


# ----------------------------------------------------------------------------------
# independence: does an expression read a state at another element of space G
# than the one bound to the equation's variable? Each binding is tracked by
# identity (a reduction, or an alias body read at some indices, binds anew).


def resolve(idx, env):
    if idx.var is None:
        return ("f", idx.fixed)
    b = env.get(idx.var)
    if b is None:  # not bound here (cannot happen in a valid model)
        return ("?", idx.var, idx.shift)
    if b[0] == "f":
        return ("f", b[1] + idx.shift)
    return ("b", b[1], b[2] + idx.shift)


def reads_other(e, G, home, env, transports=None):
    if isinstance(e, Read):
        if e.sym.kind == "state":
            for i, s in zip(e.idx, e.sym.spaces):
                if s is G and resolve(i, env) != ("b", home, 0):
                    return True
            return False
        if e.sym.kind == "alias":
            env2 = {v: resolve(i, env) for v, i in zip(e.sym.vars, e.idx)}
            return reads_other(e.sym.body, G, home, env2)
        return False
    if isinstance(e, Reduce):
        env2 = dict(env)
        env2[e.var] = ("b", object(), 0)
        return reads_other(e.body, G, home, env2)
    return any(reads_other(k, G, home, env) for k in e.kids)


# ----------------------------------------------------------------------------------
# the generator


class Ctx:
    def __init__(self, bound, aliases, depth):
        self.bound = list(bound)  # variables in scope, innermost last
        self.aliases = aliases  # aliases that may be read
        self.depth = depth

    def with_var(self, v):
        return Ctx([w for w in self.bound if w is not v] + [v], self.aliases, self.depth)

    def bound_of(self, space):
        return [v for v in self.bound if v.space is space]


class ModelGen:
    def __init__(self, index, seed, index_conditions=True):
        self.index, self.seed = index, seed
        self.rng = random.Random(f"fluxion-generated:{seed}:{index}")
        self.index_conditions = index_conditions
        self.features = set()
        self.build()

    # --- small helpers ---------------------------------------------------------
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq, weights=None):
        return self.rng.choices(seq, weights=weights, k=1)[0]

    def lit(self, lo=0.2, hi=2.5, allow_neg=False):
        v = round(self.rng.uniform(lo, hi), 2)
        if v == 0:
            v = 0.5
        if allow_neg and self.chance(0.25):
            v = -v
        return Num(v)

    # --- index choice ------------------------------------------------------------
    def index_for(self, space, ctx, fixed_only=False):
        bound = ctx.bound_of(space)
        if not bound or fixed_only or self.chance(0.12):
            self.features.add("fixed_index")
            return Idx(fixed=self.rng.randrange(space.extent))
        v = bound[-1] if self.chance(0.6) else self.pick(bound)
        if self.chance(0.28):
            shift = self.pick([-1, 1, -2, 2, 3, -3, space.extent + 1], [5, 5, 2, 2, 1, 1, 1])
            self.features.add("shift")
            return Idx(var=v, shift=shift)
        return Idx(var=v)

    def read(self, ctx, kind=None, fixed_only=False):
        kinds, weights = ["state", "param"], [5, 4]
        if ctx.aliases:
            kinds.append("alias")
            weights.append(3)
        if kind is None:
            kind = self.pick(kinds, weights)
        pool = {"state": self.states, "param": self.params, "alias": ctx.aliases}[kind]
        if not pool:
            pool = self.states
            kind = "state"
        sym = self.pick(pool)
        idx = [self.index_for(s, ctx, fixed_only) for s in sym.spaces]
        r = Read(sym, idx)
        self.features.add(f"read_{kind}_{len(sym.spaces)}d")
        if kind == "alias":
            for i in idx:
                if i.var is not None and i.shift != 0:
                    self.features.add("alias_shifted")
                if i.var is None:
                    self.features.add("alias_fixed")
        return r

    def leaf(self, ctx):
        r = self.rng.random()
        if r < 0.08 and self.constants:
            self.features.add("constant")
            return self.pick(self.constants)
        if r < 0.14:
            self.features.add("time")
            return Time()
        return self.read(ctx)

    # --- making a subexpression positive (for log, sqrt, real powers, denominators)
    def pos(self, e):
        if e.iv[0] >= 0.3:
            return e
        options = []
        if e.iv[0] >= 0:
            options.append(lambda: Bin("+", self.lit(0.3, 1.5), e))
        options.append(lambda: Bin("+", Num(1.0), PowI(e, 2)))
        options.append(lambda: Bin("+", self.lit(1.2, 2.0), Unary("sin", e)))
        options.append(lambda: Bin("+", self.lit(1.2, 2.0), Unary("tanh", e)))
        options.append(lambda: Bin("+", self.lit(0.3, 1.0), Unary("abs", e)))
        if -3 <= e.iv[0] and e.iv[1] <= 3:
            options.append(lambda: Unary("exp", e))
        for _ in range(6):
            c = self.pick(options)()
            if c.iv[0] >= 0.2 and iv_ok(c.iv):
                return c
        return Bin("+", Num(1.5), Unary("tanh", e))

    def small(self, e, bound=3.0):
        """e, or a tamed version of it, within [-bound, bound]."""
        if -bound <= e.iv[0] and e.iv[1] <= bound:
            return e
        return Unary("tanh", e)

    # --- expressions ------------------------------------------------------------
    def expr(self, ctx, depth=None):
        d = ctx.depth if depth is None else depth
        for _ in range(5):
            e = self.try_expr(ctx, d)
            if e is not None and iv_ok(e.iv):
                return e
        return self.read(ctx)

    def try_expr(self, ctx, d):
        if d <= 0:
            return self.leaf(ctx)
        kinds = ["leaf", "arith", "lit", "unary", "minmax", "powi", "powr", "where", "reduce", "identity"]
        weights = [14, 30, 12, 16, 5, 4, 4, 8, 11 if self.spaces else 0, 1.5]
        k = self.pick(kinds, weights)
        sub = lambda: self.expr(ctx, d - 1)
        if k == "leaf":
            return self.leaf(ctx)
        if k == "arith":
            op = self.pick(["+", "-", "*", "/"], [4, 3, 4, 2])
            a, b = sub(), sub()
            if op in ("-", "/") and a.fx() == b.fx():
                return None
            if op == "/":
                b = self.pos(b)
            self.features.add("op" + op)
            return Bin(op, a, b)
        if k == "lit":
            op = self.pick(["+", "-", "*", "/"], [3, 2, 4, 2])
            a = sub()
            if op == "/":
                self.features.add("div_lit")
                if self.chance(0.5):
                    return Bin("/", a, self.lit(0.5, 3.0))
                return Bin("/", self.lit(0.5, 2.0, True), self.pos(a))
            if self.chance(0.5):
                return Bin(op, a, self.lit(0.2, 2.0, op == "*"))
            return Bin(op, self.lit(0.2, 2.0, op == "*"), a)
        if k == "unary":
            op = self.pick(["neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "abs"])
            a = sub()
            self.features.add(op)
            if op == "exp":
                a = self.small(a, 2.5)
            elif op in ("log", "sqrt"):
                a = self.pos(a)
            return Unary(op, a)
        if k == "minmax":
            a, b = sub(), sub()
            if a.fx() == b.fx():
                return None
            if self.chance(0.3):
                b = self.lit(a.iv[0], a.iv[1]) if a.iv[1] > a.iv[0] else b
            op = self.pick(["min", "max"])
            self.features.add(op + "2")
            return Bin(op, a, b)
        if k == "powi":
            n = self.pick([2, 3, -1, -2, 4], [5, 3, 2, 1, 1])
            a = sub()
            if n < 0:
                a = self.pos(a)
            else:
                a = self.small(a, 2.5)
            self.features.add("powi")
            return PowI(a, n)
        if k == "powr":
            a = self.pos(sub())
            if a.iv[1] > 8:
                a = Bin("+", Num(1.2), Unary("tanh", a))
            if self.chance(0.7):
                b = Num(self.pick([0.5, 1.5, -0.5, 2.5, 0.3, -1.2]))
                self.features.add("pow_real")
            else:
                b = self.small(sub(), 1.5)
                self.features.add("pow_expr")
            return Bin("pow", a, b)
        if k == "where":
            c = self.cond(ctx, max(d - 1, 1))
            a = sub()
            b = sub() if self.chance(0.75) else self.lit(0.2, 2.0, True)
            self.features.add("where")
            return Where(c, a, b)
        if k == "reduce":
            return self.reduce(ctx, d)
        if k == "identity":
            # what fluxion simplifies as it compiles (0 x, 1 x, x + 0, x / 1, pow(x, 1), pow(x, 0), x - x),
            # next to a term that keeps the result an expression
            a = self.small(sub(), 5.0)
            form = self.pick(["mul0", "mul1", "add0", "div1", "pow1", "pow0", "subself"])
            self.features.add("identity_" + form)
            if form == "mul0":
                return Bin("+", Bin("*", a, Num(0.0)), sub())
            if form == "mul1":
                return Bin("*", Num(1.0), a)
            if form == "add0":
                return Bin("+", a, Num(0.0))
            if form == "div1":
                return Bin("/", a, Num(1.0))
            if form == "pow1":
                return PowI(a, 1)
            if form == "pow0":
                return Bin("+", PowI(a, 0), sub())
            return Bin("+", Bin("-", a, a), sub())
        return None

    def reduce(self, ctx, d):
        space = self.pick(self.spaces)
        free_ids = [v for v in space.vars if v not in ctx.bound]
        if ctx.bound_of(space) and self.chance(0.04):
            # a reduction over a variable bound outside it: the inner binding shadows the outer one
            var = self.pick(ctx.bound_of(space))
            self.features.add("reduce_shadowing")
        elif not free_ids:
            return None
        else:
            var = self.pick(free_ids)
        op = self.pick(["sum", "prod", "min", "max"], [6, 2, 2, 2])
        inner = ctx.with_var(var)
        body = self.expr(inner, d - 1)
        if var not in body.fv():
            # read something at the reduction's variable, so that it reduces something
            cands = [s for s in self.states + self.params + inner.aliases if space in s.spaces]
            if cands:
                sym = self.pick(cands)
                idx = [self.index_for(s, inner) for s in sym.spaces]
                # the first position over the space reads the variable itself
                for n, s in enumerate(sym.spaces):
                    if s is space:
                        idx[n] = Idx(var=var)
                        break
                body = Bin(self.pick(["+", "*"]), body, Read(sym, idx))
        if op == "prod":
            if not (-1.6 <= body.iv[0] and body.iv[1] <= 1.6):
                body = Bin("+", Num(1.0), Bin("*", Num(self.pick([0.2, 0.3, 0.5])), Unary("tanh", body)))
        self.features.add("reduce_" + op)
        if any(isinstance(n, Reduce) for n in body.walk()):
            self.features.add("reduce_nested")
        r = Reduce(op, var, body)
        return r if iv_ok(r.iv) else None

    def cond(self, ctx, d):
        kinds = ["cmp", "eqread", "idx", "and", "or", "not"]
        idx_ok = self.index_conditions and ctx.bound
        weights = [10, 3, 4 if idx_ok else 0, 2 if d > 1 else 0, 2 if d > 1 else 0, 1.5 if d > 1 else 0]
        k = self.pick(kinds, weights)
        if k == "cmp":
            op = self.pick(["<", "<=", ">", ">="])
            a = self.expr(ctx, min(d, 2))
            if self.chance(0.5) or a.iv[1] - a.iv[0] < 1e-9:
                b = self.expr(ctx, min(d, 2))
                if a.fx() == b.fx():
                    b = self.lit(0.3, 2.0)
            else:
                lo, hi = a.iv
                b = Num(round(self.rng.uniform(lo + 0.1 * (hi - lo), hi - 0.1 * (hi - lo)), 3))
            self.features.add("cmp" + op)
            return Cmp(op, a, b)
        if k == "eqread":
            op = self.pick(["eq", "ne"])
            self.features.add(op)
            if self.chance(0.75):
                # two reads of one symbol, at elements that coincide at some indices
                a = self.read(ctx)
                b = Read(a.sym, [self.index_for(s, ctx) for s in a.sym.spaces])
                if a.fx() == b.fx():
                    b = Read(a.sym, [Idx(fixed=self.rng.randrange(s.extent)) for s in a.sym.spaces])
                if a.fx() == b.fx():
                    b = self.lit(0.3, 2.0)
                return Cmp(op, a, b)
            a, b = self.expr(ctx, 1), self.expr(ctx, 1)
            if a.fx() == b.fx():
                b = self.lit(0.3, 2.0)
            return Cmp(op, a, b)
        if k == "idx":
            self.features.add("index_condition")
            v = self.pick(ctx.bound)
            op = self.pick(list(IDX_OPS))
            shift = self.pick([0, 0, 0, -1, 1])
            i = Idx(var=v, shift=shift)
            others = [w for w in ctx.bound_of(v.space) if w is not v]
            if others and self.chance(0.4):
                j = Idx(var=self.pick(others), shift=self.pick([0, 0, 1, -1]))
            else:
                j = Idx(fixed=self.rng.randrange(v.space.extent))
            return IdxCmp(op, i, j)
        if k in ("and", "or"):
            self.features.add(k)
            return Logic("&&" if k == "and" else "||", self.cond(ctx, d - 1), self.cond(ctx, d - 1))
        self.features.add("not")
        return Logic("!", self.cond(ctx, d - 1))

    # --- the model ---------------------------------------------------------------
    def build(self):
        rng = self.rng
        while True:
            nsp = self.pick([0, 1, 1, 2, 2, 2, 3], None)
            names = ["a", "b", "c"]
            self.spaces = [Space(names[k], self.pick([1, 2, 2, 3, 3, 4, 5]), self.chance(0.55))
                           for k in range(nsp)]
            # states
            self.states = []
            for k in range(rng.randint(1, 5)):
                shape = self.shape(2, distinct=True)
                self.states.append(Sym("state", f"X{k}", shape))
            ns = sum(s.size for s in self.states)
            if 2 <= ns <= 16:
                break
        off = 0
        for s in self.states:
            s.offset, off = off, off + s.size
        self.ns = off
        # parameters
        while True:
            self.params = []
            nparams = 0 if self.chance(0.03) else rng.randint(1, 6)
            for k in range(nparams):
                self.params.append(Sym("param", f"p{k}", self.shape(2, distinct=False)))
            if sum(p.size for p in self.params) <= 48:
                break
        off = 0
        for p in self.params:
            p.offset, off = off, off + p.size
        self.np = off
        if nparams == 0:
            self.features.add("no_params")
        # named constants
        self.constants = [Const(f"K{k}", round(rng.uniform(0.2, 2.0), 3)) for k in range(rng.randint(0, 2))]
        # aliases, each reading only earlier ones
        self.aliases = []
        for k in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
            vars_ = self.alias_vars()
            body = self.expr(Ctx(vars_, list(self.aliases), rng.choice([1, 2, 2, 3])))
            a = Sym("alias", f"A{k}", [])
            a.body = body
            a.vars = body.fv()
            a.spaces = [v.space for v in a.vars]
            self.aliases.append(a)
            self.features.add(f"alias_{len(a.vars)}d")
        # spaces an independent group will be claimed over (equations are redrawn until they comply)
        over = [sp for sp in self.spaces if any(sp in s.spaces for s in self.states)]
        self.indep_target = [sp for sp in over if self.chance(0.3)]
        # transports (not over a space targeted as independent for the states over it)
        self.transports = []
        for sp in [s for s in self.spaces if s.ordered]:
            for _ in range(self.pick([0, 1, 1, 2], None)):
                cands = [s for s in self.states if sp in s.spaces]
                if sp in self.indep_target or not cands:
                    continue
                listed = [s for s in cands if self.chance(0.6)] or [self.pick(cands)]
                common = [q for q in self.spaces if all(q in s.spaces for s in listed)]
                rate_spaces = [q for q in common if self.chance(0.6)]
                rate_vars = [self.pick(q.vars) for q in rate_spaces]
                if self.chance(0.2):
                    rate = self.lit(0.1, 1.0)
                else:
                    rate = self.expr(Ctx(rate_vars, list(self.aliases), rng.choice([0, 1, 1, 2])))
                if not iv_ok(rate.iv):
                    rate = self.lit(0.1, 1.0)
                self.transports.append((sp, rate, rate_vars, listed))
                self.features.add("transport")
                if rate.fv():
                    self.features.add("transport_shaped_rate")
        # equations
        self.equations = []
        for s in self.states:
            lhs = [self.pick(sp.vars) for sp in s.spaces]
            for attempt in range(30):
                ctx = Ctx(lhs, list(self.aliases), rng.choice([1, 2, 3, 3, 4]))
                rhs = self.expr(ctx)
                if rng.random() < 0.4:  # a decay term keeps the systems reasonable
                    rhs = Bin("-", rhs, Bin("*", self.read(Ctx(lhs, [], 0), "param") if self.params else
                                         self.lit(0.1, 1.0), Read(s, [Idx(var=v) for v in lhs])))
                eq = (s, lhs, rhs)
                if all(not self.violates(sp, eq) for sp in self.indep_target):
                    break
            else:
                rhs = Bin("*", self.lit(0.1, 1.0, True), Read(s, [Idx(var=v) for v in lhs]))
                eq = (s, lhs, rhs)
            self.equations.append(eq)
        # groups
        self.groups = []
        for sp in over:
            independent = all(not self.violates(sp, eq) for eq in self.equations)
            if sp in self.indep_target and independent:
                self.groups.append((sp, True))
                self.features.add("group_independent")
            elif self.chance(0.3):
                self.groups.append((sp, independent and self.chance(0.5)))
                self.features.add("group_independent" if self.groups[-1][1] else "group_coupled")
        # observables
        self.observables = []
        for k in range(self.pick([0, 1, 1, 2, 3], None)):
            nv = self.pick([0, 1, 1, 2], None) if self.spaces else 0
            vars_ = []
            for _ in range(nv):
                sp = self.pick(self.spaces)
                cand = [v for v in sp.vars if v not in vars_]
                vars_.append(self.pick(cand))
            rhs = self.expr(Ctx(vars_, list(self.aliases), rng.choice([1, 2, 3])))
            o = Sym("obs", f"o{k}", [v.space for v in vars_])
            self.observables.append((o, vars_, rhs))
            self.features.add(f"observable_{len(vars_)}d")
        off = 0
        for o, _, _ in self.observables:
            o.offset, off = off, off + o.size
        self.no = off
        # independent-group element of every flat state
        self.group_tables = []
        for sp, indep in self.groups:
            if not indep:
                continue
            table = []
            for s in self.states:
                for flat in range(s.size):
                    if sp in s.spaces:
                        pos = s.spaces.index(sp)
                        stride = 1
                        for q in s.spaces[pos + 1:]:
                            stride *= q.extent
                        table.append((flat // stride) % sp.extent)
                    else:
                        table.append(-1)
            self.group_tables.append((sp, table))
        # statement order: declarations first, then everything else shuffled
        self.items = ([("eq", e) for e in self.equations] + [("tr", t) for t in self.transports] +
                      [("grp", g) for g in self.groups] + [("obs", o) for o in self.observables])
        obs_order = [it for it in self.items if it[0] == "obs"]
        rng.shuffle(self.items)
        # observables keep their declaration order among themselves (that is their layout order)
        it_obs = iter(obs_order)
        self.items = [next(it_obs) if it[0] == "obs" else it for it in self.items]
        if any(isinstance(n, Where) for n in self.all_nodes()):
            self.features.add("where")

    def shape(self, maxrank, distinct):
        if not self.spaces:
            return []
        rank = self.pick(list(range(maxrank + 1)), [3, 4, 2][:maxrank + 1])
        if distinct:
            rank = min(rank, len(self.spaces))
            return self.rng.sample(self.spaces, rank)
        return [self.pick(self.spaces) for _ in range(rank)]

    def alias_vars(self):
        if not self.spaces:
            return []
        n = self.pick([0, 1, 1, 2], None)
        out = []
        for _ in range(n):
            sp = self.pick(self.spaces)
            cand = [v for v in sp.vars if v not in out]
            out.append(self.pick(cand))
        return out

    def all_nodes(self):
        roots = [a.body for a in self.aliases] + [e[2] for e in self.equations] + \
                [t[1] for t in self.transports] + [o[2] for o in self.observables]
        for r in roots:
            yield from r.walk()

    def violates(self, G, eq):
        s, lhs, rhs = eq
        if G not in s.spaces:
            return False
        home = object()
        env = {}
        for v in lhs:
            env[v] = ("b", home if v.space is G else object(), 0)
        if reads_other(rhs, G, home, env):
            return True
        for sp, rate, rate_vars, listed in self.transports:
            if s not in listed:
                continue
            if sp is G:
                return True  # the previous stage of the state itself
            renv = {rv: env[[v for v in lhs if v.space is rv.space][0]] for rv in rate_vars}
            if reads_other(rate, G, home, renv):
                return True
        return False

    # --- output --------------------------------------------------------------------
    def fx_source(self):
        L = []
        for sp in self.spaces:
            L.append(sp.decl())
            for v in sp.vars:
                L.append(v.decl())
        for s in self.states + self.params:
            L.append(s.decl())
        for c in self.constants:
            L.append(f'constexpr fx::constant<"{c.name}", {repr(c.v)}> {c.name};')
        for a in self.aliases:
            L.append(f'constexpr auto {a.name} = fx::alias<"{a.name}">({a.body.fx()});')
        items = [f"fx::states({', '.join(s.name for s in self.states)})",
                 f"fx::params({', '.join(p.name for p in self.params)})"]
        for kind, it in self.items:
            if kind == "eq":
                s, lhs, rhs = it
                target = s.name if not lhs else f"{s.name}({', '.join(v.fx for v in lhs)})"
                items.append(f"fx::d({target}) = {rhs.fx()}")
            elif kind == "tr":
                sp, rate, _, listed = it
                items.append(f"fx::transport<{sp.cpp}>({rate.fx()}, {', '.join(s.name for s in listed)})")
            elif kind == "grp":
                sp, indep = it
                items.append(f"fx::group<{sp.cpp}>(fx::{'independent' if indep else 'coupled'})")
            else:
                o, vars_, rhs = it
                items.append(f'fx::observe<"{o.name}">({", ".join(v.fx for v in vars_)}) = {rhs.fx()}')
        L.append("constexpr auto mdl = fx::model(\n    " + ",\n    ".join(items) + ");")
        return "\n".join(L)

    def loops(self, vars_, indent):
        head, pad = [], indent
        for v in vars_:
            head.append(f"{pad}for (int {v.r} = 0; {v.r} < {v.space.extent}; ++{v.r})")
            pad += "  "
        return head, pad

    @staticmethod
    def flat_of(vars_):
        terms, stride = [], 1
        for v in reversed(vars_):
            terms.append(v.r if stride == 1 else f"{v.r} * {stride}")
            stride *= v.space.extent
        return " + ".join(reversed(terms)) if terms else "0"

    def ref_aliases(self, indent):
        L = []
        for a in self.aliases:
            L.append(f"{indent}T al_{a.name}[{max(a.size, 1)}];")
            head, pad = self.loops(a.vars, indent)
            L += head
            L.append(f"{pad}al_{a.name}[{self.flat_of(a.vars)}] = {a.body.r()};")
            L.append(f"{indent}(void)al_{a.name};")
        return L

    def ref_source(self):
        L = ["template <class T>", "struct ref {",
             f"  static constexpr std::size_t ns = {self.ns}, np = {self.np}, no = {self.no};",
             "  static void rhs(const T& t, const T* x, const T* p, T* dx) {",
             "    (void)t; (void)x; (void)p;"]
        L += self.ref_aliases("    ")
        for n, (sp, rate, rate_vars, listed) in enumerate(self.transports):
            args = ", ".join(f"[[maybe_unused]] int {v.r}" for v in rate_vars)
            L.append(f"    auto rate{n} = [&]({args}) -> T {{ return {rate.r()}; }};")
            L.append(f"    (void)rate{n};")
        for s, lhs, rhs in self.equations:
            head, pad = self.loops(lhs, "    ")
            L += head
            terms = [rhs.r()]
            for n, (sp, rate, rate_vars, listed) in enumerate(self.transports):
                if s not in listed:
                    continue
                k = [v for v in lhs if v.space is sp][0]
                def at(shift):
                    args = []
                    for rv in rate_vars:
                        ev = [v for v in lhs if v.space is rv.space][0]
                        args.append(f"{ev.r} - 1" if (ev is k and shift) else ev.r)
                    idx = [Idx(var=v, shift=-1 if (v is k and shift) else 0) for v in lhs]
                    xi = Read(s, idx).flat_r()
                    return f"rate{n}({', '.join(args)}) * T(x[{s.offset} + {xi}])"
                inflow = f"({k.r} > 0 ? {at(True)} : T(0))"
                outflow = f"({k.r} < {sp.extent - 1} ? {at(False)} : T(0))"
                terms.append(f"({inflow} - {outflow})")
            L.append(f"{pad}dx[{s.offset} + {self.flat_of(lhs)}] = " + " + ".join(terms) + ";")
        L.append("  }")
        L.append("  static void observe(const T& t, const T* x, const T* p, T* y) {")
        L.append("    (void)t; (void)x; (void)p; (void)y;")
        if self.observables:
            L += self.ref_aliases("    ")
        for o, vars_, rhs in self.observables:
            head, pad = self.loops(vars_, "    ")
            L += head
            L.append(f"{pad}y[{o.offset} + {self.flat_of(vars_)}] = {rhs.r()};")
        L.append("  }")
        L.append("};")
        return "\n".join(L)

    @staticmethod
    def names(syms):
        out = []
        for s in syms:
            for flat in range(s.size):
                idx, rest = [], flat
                for sp in reversed(s.spaces):
                    idx.append(rest % sp.extent)
                    rest //= sp.extent
                out.append(s.name + ("[" + ",".join(map(str, reversed(idx))) + "]" if s.spaces else ""))
        return "|".join(out)

    def tu_part(self):
        src = self.fx_source()
        ns = f"g{self.index:04d}"
        L = [f"// model {self.index} (seed {self.seed}): {', '.join(sorted(self.features))}",
             f"namespace {ns} {{", src, "", self.ref_source()]
        for n, (sp, table) in enumerate(self.group_tables):
            L.append(f"inline constexpr int group{n}[] = {{{', '.join(map(str, table))}}};")
        groups = ", ".join(f'{{"{sp.name}", group{n}}}' for n, (sp, _) in enumerate(self.group_tables))
        L.append(f'inline const gen::model_info info{{{self.index}, {self.seed}, R"FLUXION({src})FLUXION",')
        L.append(f'    "{self.names(self.states)}",')
        L.append(f'    "{self.names(self.params)}",')
        L.append(f'    "{self.names([o for o, _, _ in self.observables])}",')
        L.append(f"    {{{groups}}}}};")
        L.append(f"}}  // namespace {ns}")
        return "\n".join(L)


# ----------------------------------------------------------------------------------

HEADER = """// Generated by tests/generated/gen.py -- do not edit. Models {first}..{last} of seed {seed}.
#include "check.hpp"

namespace fx = fluxion;
"""


def tu_text(models, name, seed):
    out = [HEADER.format(first=models[0].index, last=models[-1].index, seed=seed)]
    for m in models:
        out.append(m.tu_part())
        out.append("")
    out.append("int main() {")
    out.append("#if !GEN_EXTRA")
    out.append(f'  gen::suite s("{name}");')
    for m in models:
        ns = f"g{m.index:04d}"
        out.append(f"  s.run<{ns}::mdl, {ns}::ref>({ns}::info);")
    out.append("#else")
    out.append(f"  // every {EXTRA_EVERY}rd model: fluxion in std::complex<double> and the host batch drivers")
    out.append(f'  gen::suite s("{name}_extra");')
    for m in models:
        if m.index % EXTRA_EVERY == 0:
            ns = f"g{m.index:04d}"
            out.append(f"  s.run<{ns}::mdl, {ns}::ref>({ns}::info);")
    out.append("#endif")
    out.append("  return s.finish();")
    out.append("}")
    return "\n".join(out) + "\n"


def tu_names(models, per_tu):
    n = (models + per_tu - 1) // per_tu
    return [f"generated_{k:02d}" if n <= 100 else f"generated_{k:03d}" for k in range(n)]


def write(path, text):
    # Always written (Ninja compares times: an output left untouched would stay out of date).
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    env = os.environ
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="output folder for the generated .cpp files")
    ap.add_argument("--models", type=int, default=int(env.get("FLUXION_GENERATED_MODELS", 200)))
    ap.add_argument("--per-tu", type=int, default=int(env.get("FLUXION_GENERATED_PER_TU", 25)))
    ap.add_argument("--seed", type=int, default=int(env.get("FLUXION_GENERATED_SEED", 1)))
    ap.add_argument("--no-index-conditions", action="store_true",
                    help="no conditions on indices (k == 0 ...), for fluxion before they existed")
    ap.add_argument("--list-outputs", action="store_true", help="print the output file names, one a line")
    ap.add_argument("--show", type=int, help="print the fluxion source of model I")
    ap.add_argument("--stats", action="store_true", help="print how often each node kind occurs")
    a = ap.parse_args(argv[1:])
    if a.list_outputs:
        for n in tu_names(a.models, a.per_tu):
            print(n + ".cpp")
        return 0
    if a.show is not None:
        m = ModelGen(a.show, a.seed, not a.no_index_conditions)
        print(m.fx_source())
        return 0
    models = [ModelGen(i, a.seed, not a.no_index_conditions) for i in range(a.models)]
    if a.stats:
        counts = {}
        for m in models:
            for f in m.features:
                counts[f] = counts.get(f, 0) + 1
        for k in sorted(counts):
            print(f"{k:28s} {counts[k]}")
        print(f"models {len(models)}, states {sum(m.ns for m in models)}, params {sum(m.np for m in models)}, "
              f"observables {sum(m.no for m in models)}")
        return 0
    if not a.out:
        ap.error("--out is required")
    os.makedirs(a.out, exist_ok=True)
    names = tu_names(a.models, a.per_tu)
    for k, name in enumerate(names):
        chunk = models[k * a.per_tu:(k + 1) * a.per_tu]
        write(os.path.join(a.out, name + ".cpp"), tu_text(chunk, name, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
