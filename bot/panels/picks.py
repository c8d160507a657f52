"""The picks of a multi-select: only combinations the rules take, and as many as the rules allow.

A Discord multi-select lets a player tick any options together, so a panel whose options are each legal alone
could still send a combination the rules refuse (one weapon at two ships, one crew member to two stations). A
plug-in hands :func:`together` its options and a test of a combination (the ruleset's own validation) and gets
back what to keep of the player's picks, which options may still join them, and the rules' maximum, which it
shows as the select's ``max_values``.

The picks ride in the draft's custom id packed as a bit set over the options (:func:`pack`): a select of 25
options takes at most 9 characters whatever the options' values, so the room left in the custom id never
decides how many may be picked. The bit set carries a digest of the option values, so picks made on another list
of options (the board changed under a panel) are dropped rather than read as other options.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.panels.model import Option

PACKED = "~"  # a packed field starts with it (an option value never does: plug-ins' values are short codes)
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
DIGEST = 3  # base-36 characters of the option list's digest: a wrong list is read as another 1 in 46,656
#: offered subsets kept by identity, so their labels are rendered once per panel build: a few per click of the
#: last minute or so, at a thousand encounters
SUBSETS_KEPT = 8192


def _base36(n: int) -> str:
    out = ""
    while True:
        n, digit = divmod(n, 36)
        out = DIGITS[digit] + out
        if not n:
            return out


def _digest(values: Sequence[str]) -> str:
    return _base36(zlib.crc32("\n".join(values).encode()) % 36**DIGEST).rjust(DIGEST, "0")


def pack(values: Sequence[str], picked: Iterable[str]) -> str:
    """``picked`` (some of ``values``) as a short code for a draft field ("" when nothing is picked)."""
    index = {v: i for i, v in enumerate(values)}
    mask = 0
    for value in picked:
        if value in index:
            mask |= 1 << index[value]
    return f"{PACKED}{_digest(values)}{_base36(mask)}" if mask else ""


def unpack(values: Sequence[str], field: str, separator: str = ",") -> tuple[str, ...]:
    """The picks a draft field holds, in the order of ``values``: packed by :func:`pack` (dropped whole when
    packed over another list), or plain values (a select's click, a stored order read back) kept when offered."""
    if field.startswith(PACKED):
        digest, bits = field[1 : 1 + DIGEST], field[1 + DIGEST :]
        if digest != _digest(values) or not bits or any(c not in DIGITS for c in bits):
            return ()
        mask = int(bits, 36)
        return tuple(v for i, v in enumerate(values) if mask >> i & 1)
    given = set(field.split(separator))
    return tuple(v for v in values if v in given)


@dataclass(frozen=True, slots=True)
class Together:
    kept: tuple[str, ...]  # the picks kept: each taken by the rules with those before it
    offered: tuple[Option, ...]  # the kept options and those the rules take with all of them
    most: int  # how many the rules take at once, from the kept ones on (the select's ``max_values``)


def together(
    options: tuple[Option, ...], picked: Sequence[str], takes: Callable[[tuple[str, ...]], bool]
) -> Together:
    """What to keep of ``picked`` and what to offer next to it. ``takes(values)``: the rules accept these options
    together. A pick the rules refuse with the ones before it is dropped (a player ticking two options that
    exclude each other keeps the first); an option that cannot join the kept ones is not offered; ``most`` is
    the size of a largest set the kept ones may grow to, one option at a time, as the rules allow."""
    values = tuple(o.value for o in options)
    kept: list[str] = []
    for value in picked:
        if value in values and value not in kept and takes((*kept, value)):
            kept.append(value)
    joins = [v for v in values if v not in kept and takes((*kept, v))]
    grown = list(kept)
    for value in joins:
        if takes((*grown, value)):
            grown.append(value)
    offered = {*kept, *joins}
    return Together(tuple(v for v in values if v in kept), offered_subset(options, offered), len(grown))


_SUBSETS_LOCK = threading.Lock()
_SUBSETS: OrderedDict[tuple[int, frozenset[str]], tuple[tuple[Option, ...], tuple[Option, ...]]] = (
    OrderedDict()
)


def offered_subset(options: tuple[Option, ...], offered: set[str]) -> tuple[Option, ...]:
    """The options in ``offered``, the same tuple for the same options and picks (the Discord layer keeps an
    options tuple's rendered labels by its identity)."""
    if len(offered) == len(options):
        return options
    key = (id(options), frozenset(offered))
    with _SUBSETS_LOCK:  # panels are built in the click worker (bot/offloop.py), anything else on the loop
        hit = _SUBSETS.get(key)
        if hit is not None and hit[0] is options:
            _SUBSETS.move_to_end(key)
            return hit[1]
        subset = tuple(o for o in options if o.value in offered)
        _SUBSETS[key] = (options, subset)
        if len(_SUBSETS) > SUBSETS_KEPT:
            _SUBSETS.popitem(last=False)
        return subset
