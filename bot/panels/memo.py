"""What a panel offers, worked out once per state.

Listing what the rules accept means running the ruleset's parser and validator over every candidate, and a click
builds its panel twice (before and after it is applied) on the same state; the service hands out the same state
object while the encounter is unchanged. States are immutable, so a plug-in's draft-independent lists are a pure
function of (state, arguments): :func:`per_state` keeps the last few, by the state's identity (the state is held
with the entry, so an identity is never reused while it is cached).

Panels are built in the click worker thread (bot/offloop.py) while the event loop may ask the same plug-ins for
a status line, so each memo's table is touched under its own lock. The lock covers the table only, never the
work: a memoized function calls others (a build asks for the lists it shows), and a value worked out twice by
two threads at once is the same value.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Concatenate, ParamSpec, TypeVar

from rules.state import EncounterState

P = ParamSpec("P")
T = TypeVar("T")
#: states whose results each memoized function keeps, the least recently used going first. A click comes 20 to
#: 70 s after its panel was built on the encounter's current state; with a thousand encounters stepping about
#: forty times a second that is up to 2,800 newer states, and one encounter seldom has more than two in use
#: (the current one and the one a slow click was made on)
STATES_KEPT = 4096
#: results kept for one state (its units, the drafts clicked on it): more comes only from a flood of clicks
PER_STATE = 256


def per_state(
    fn: Callable[Concatenate[EncounterState, P], T], size: int = STATES_KEPT
) -> Callable[Concatenate[EncounterState, P], T]:
    """Memoize ``fn(state, *args)`` (hashable ``args``) by the identity of ``state``, for the last ``size``
    states used (each with its last :data:`PER_STATE` results)."""
    cache: OrderedDict[int, tuple[EncounterState, dict[tuple[Hashable, ...], T]]] = OrderedDict()
    lock = threading.Lock()

    @functools.wraps(fn)
    def cached(state: EncounterState, *args: P.args, **kwargs: P.kwargs) -> T:
        key = (*args, *sorted(kwargs.items()))
        with lock:
            kept = cache.get(id(state))
            if kept is not None and kept[0] is state:
                cache.move_to_end(id(state))
                if key in kept[1]:
                    return kept[1][key]
        value = fn(state, *args, **kwargs)
        with lock:
            kept = cache.get(id(state))
            if kept is None or kept[0] is not state:
                results: dict[tuple[Hashable, ...], T] = {}
                cache[id(state)] = (state, results)
            else:
                results = kept[1]
            cache.move_to_end(id(state))
            results[key] = value
            if len(results) > PER_STATE:
                del results[next(iter(results))]
            while len(cache) > size:
                cache.popitem(last=False)
        return value

    return cached
