"""What a panel offers, worked out once per state.

Listing what the rules accept means running the ruleset's parser and validator over every candidate, and a click
builds its panel twice (before and after it is applied) on the same state; the service hands out the same state
object while the encounter is unchanged. States are immutable, so a plug-in's draft-independent lists are a pure
function of (state, arguments): :func:`per_state` keeps them by the state's identity, for as long as the state is
alive. The service holds each encounter's current state; once a step replaces it, the old one's lists are let go
with it, instead of waiting their turn out of a table of thousands: what a memo holds, a full collection of the
garbage collector walks with the event loop stopped, and lists of states nobody would click on again only
lengthened those pauses (bot/process/client.py ``COLLECTOR_THRESHOLDS`` makes them rare).

Panels are built in the click worker thread (bot/offloop.py) while the event loop may ask the same plug-ins for
a status line, so each memo's table is touched under its own lock. The lock covers the table only, never the
work: a memoized function calls others (a build asks for the lists it shows), and a value worked out twice by
two threads at once is the same value.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Concatenate, ParamSpec, TypeVar

from rules.state import EncounterState

P = ParamSpec("P")
T = TypeVar("T")
#: states whose results each memoized function keeps at most, the least recently used going first, while they are
#: alive (a live state is one some encounter is still played on, or some work still holds). A click comes 20 to
#: 70 s after its panel was built on the encounter's current state, which the service keeps for a thousand
#: encounters and as many idle ones
STATES_KEPT = 4096
#: results kept for one state (its units, the drafts clicked on it): more comes only from a flood of clicks
PER_STATE = 256


def per_state(
    fn: Callable[Concatenate[EncounterState, P], T], size: int = STATES_KEPT
) -> Callable[Concatenate[EncounterState, P], T]:
    """Memoize ``fn(state, *args)`` (hashable ``args``) by the identity of ``state``, while it is alive, for the
    last ``size`` states used (each with its last :data:`PER_STATE` results)."""
    cache: OrderedDict[int, tuple[weakref.ref[EncounterState], dict[tuple[Hashable, ...], T]]] = OrderedDict()
    lock = threading.Lock()
    # identities of states gone, noted by their references' callbacks and dropped at the next call: a callback
    # runs wherever the state's last reference goes (another thread, or inside this memo's own locked section)
    gone: list[int] = []

    def forget(key: int) -> Callable[[weakref.ref[EncounterState]], None]:
        return lambda _ref: gone.append(key)  # a list's append is atomic: no lock here

    def purge() -> None:
        while gone:
            key = gone.pop()
            kept = cache.get(key)
            if kept is not None and kept[0]() is None:  # not a newer state given the same identity since
                del cache[key]

    @functools.wraps(fn)
    def cached(state: EncounterState, *args: P.args, **kwargs: P.kwargs) -> T:
        key = (*args, *sorted(kwargs.items()))
        with lock:
            purge()
            kept = cache.get(id(state))
            if kept is not None and kept[0]() is state:
                cache.move_to_end(id(state))
                if key in kept[1]:
                    return kept[1][key]
        value = fn(state, *args, **kwargs)
        with lock:
            kept = cache.get(id(state))
            if kept is None or kept[0]() is not state:
                results: dict[tuple[Hashable, ...], T] = {}
                cache[id(state)] = (weakref.ref(state, forget(id(state))), results)
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
