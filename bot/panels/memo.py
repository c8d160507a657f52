"""What a panel offers, worked out once per state.

Listing what the rules accept means running the ruleset's parser and validator over every candidate, and a click
builds its panel twice (before and after it is applied) on the same state; the service hands out the same state
object while the encounter is unchanged. States are immutable, so a plug-in's draft-independent lists are a pure
function of (state, arguments): :func:`per_state` keeps the last few, by the state's identity (the state is held
with the entry, so an identity is never reused while it is cached).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Concatenate, ParamSpec, TypeVar

from rules.state import EncounterState

P = ParamSpec("P")
T = TypeVar("T")
SIZE = 256  # entries per memoized function: a few units of a few encounters, over the last few states


def per_state(
    fn: Callable[Concatenate[EncounterState, P], T], size: int = SIZE
) -> Callable[Concatenate[EncounterState, P], T]:
    """Memoize ``fn(state, *args)`` (hashable ``args``) by the identity of ``state``, the last ``size`` calls."""
    cache: OrderedDict[tuple[Hashable, ...], tuple[EncounterState, T]] = OrderedDict()

    @functools.wraps(fn)
    def cached(state: EncounterState, *args: P.args, **kwargs: P.kwargs) -> T:
        key = (id(state), *args, *sorted(kwargs.items()))
        hit = cache.get(key)
        if hit is not None and hit[0] is state:
            cache.move_to_end(key)
            return hit[1]
        value = fn(state, *args, **kwargs)
        cache[key] = (state, value)
        if len(cache) > size:
            cache.popitem(last=False)
        return value

    return cached
