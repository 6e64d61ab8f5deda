"""Every result registered once, by id; a derivation cites another by id.

A builder is registered with the ids of the derivations it returns::

    @register("L8")
    def lemma8():
        L7 = cite("L7", {"a": af})        # the registered L7 as a lemma, instantiated when used
        ...

Builders run lazily, the first time one of their ids is asked for (``derivation(id)``), so a
citation builds what it cites, never a list position or a quoted copy.  A builder may take
keyword parameters with defaults (the constants explorer calls it with others, getting a fresh,
unregistered variant).  ``ids()`` lists the results in the order of the paper: the modules of
:data:`MODULES` in turn, each in the order its builders are registered.
"""
from __future__ import annotations

import importlib

from ..errors import InputError

__all__ = ["register", "derivation", "cite", "ids", "derivations", "module_of", "MODULES"]

#: the modules that register results, in the paper's order
MODULES = ("section3", "section4", "expansions", "asymptotics")

_BUILDER: dict = {}      # id -> builder
_ORDER: list = []        # ids in registration order
_BUILT: dict = {}        # id -> Derivation
_BUILDING: list = []     # builders running (a cycle of citations is an error)


def register(*result_ids):
    """Register the decorated builder as the one source of the derivations ``result_ids``."""
    def deco(builder):
        for rid in result_ids:
            if rid in _BUILDER:
                raise ValueError(f"result {rid!r} registered twice")
            _BUILDER[rid] = builder
            _ORDER.append(rid)
        builder.registered_ids = tuple(result_ids)
        return builder
    return deco


def _load():
    for name in MODULES:
        importlib.import_module(f"{__package__}.{name}")


def _build(rid):
    builder = _BUILDER[rid]
    if builder in _BUILDING:
        raise ValueError(f"citation cycle through {rid!r}")
    _BUILDING.append(builder)
    try:
        out = builder()
    finally:
        _BUILDING.remove(builder)
    out = list(out) if isinstance(out, (list, tuple)) else [out]
    got = [d.id for d in out]
    if sorted(got) != sorted(builder.registered_ids):
        raise ValueError(f"{builder.__name__} registered {list(builder.registered_ids)} but built {got}")
    for d in out:
        _BUILT[d.id] = d


def derivation(rid: str):
    """The registered derivation ``rid`` (built on first use)."""
    if rid not in _BUILT:
        if rid not in _BUILDER:
            _load()
        if rid not in _BUILDER:
            raise InputError("id", f"unknown result {rid!r}; known: {', '.join(ids())}")
        _build(rid)
    return _BUILT[rid]


def cite(target, params=None):
    """The result ``target`` (an id; a :class:`~infonce_sym.proofs.chain.Derivation` only for an
    explorer's unregistered variant) as a lemma whose parameters ``params`` (name -> symbol or
    function of the cited chain) may be instantiated; the citing step's check instantiates it and
    the CAS compares the instance with the step's claim."""
    from .chain import Lemma
    d = derivation(target) if isinstance(target, str) else target
    return Lemma.from_derivation(d, dict(params or {}))


def module_of(rid: str) -> str:
    """The short name of the module (one of :data:`MODULES`) whose builder registers ``rid``."""
    if rid not in _BUILDER:
        derivation(rid)               # loads the modules, or names the unknown id
    return _BUILDER[rid].__module__.rsplit(".", 1)[-1]


def ids() -> list:
    """Every registered id, in the order of the paper: the modules of :data:`MODULES` in turn (whichever
    was imported first), each in the order its builders are registered."""
    _load()
    rank = {name: i for i, name in enumerate(MODULES)}
    return sorted(_ORDER, key=lambda rid: (rank.get(module_of(rid), len(rank)), _ORDER.index(rid)))


def derivations() -> list:
    """Every registered derivation, in the order of :func:`ids`."""
    return [derivation(rid) for rid in ids()]
