"""The draft a player composes on an order panel, and the one codec that carries it in a custom id.

A draft is a small mapping of named string fields (``Draft(move="DA", fire=["gunner1.1.b"])``); what the fields
mean is the panel plug-in's business. It rides with the panel message as a disabled button's custom id,
``hexd:draft:{phase}:{name}={value};…``, so a panel keeps working after a restart without anything kept in memory,
and nothing secret touches the shared event log before the player submits.

Discord allows 100 characters in a custom id. The codec never cuts: a draft that does not fit is refused with
:class:`DraftTooLong`. A plug-in keeps its drafts within bounds by sizing its selects with
:func:`most_that_fit` and trimming what it is given with :func:`keep_fitting` (a forged click may send more).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from urllib.parse import quote, unquote

CUSTOM_ID_LIMIT = 100  # Discord: characters in a component's custom id
PREFIX = "hexd:draft:"
MAX_PHASE_DIGITS = 7  # phases an encounter may reach: 9,999,999
#: characters a draft's fields may take, so that its custom id fits in every phase an encounter may reach
DRAFT_ROOM = CUSTOM_ID_LIMIT - len(PREFIX) - MAX_PHASE_DIGITS - 1
LIST_SEPARATOR = ","

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,15}$")
_DRAFT_ID = re.compile(rf"^hexd:draft:(?P<phase>\d{{1,{MAX_PHASE_DIGITS}}}):(?P<body>.*)$", re.DOTALL)
_SAFE = "".join(
    chr(c) for c in range(0x20, 0x7F) if chr(c) not in "%;="
)  # printable ASCII but the separators


class DraftTooLong(ValueError):
    """A draft that cannot ride in a custom id: a panel plug-in let it grow past :data:`DRAFT_ROOM`."""


class Draft(Mapping[str, str]):
    """Named string fields, built by keyword; an empty field is no field (``Draft(move="") == Draft()``).

    A field given as a sequence of strings is stored comma-separated and read back with :meth:`list`.
    """

    __slots__ = ("_fields",)

    def __init__(self, **fields: str | Iterable[str]) -> None:
        stored: dict[str, str] = {}
        for name, value in fields.items():
            if not _NAME.match(name):
                raise ValueError(f"draft field names are short lowercase words, not {name!r}")
            text = value if isinstance(value, str) else _joined(name, value)
            if text:
                stored[name] = text
        self._fields = dict(sorted(stored.items()))

    def __getitem__(self, name: str) -> str:
        return self._fields[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __hash__(self) -> int:
        return hash(tuple(self._fields.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Draft) and self._fields == other._fields

    def __repr__(self) -> str:
        return f"Draft({', '.join(f'{k}={v!r}' for k, v in self._fields.items())})"

    def text(self, name: str) -> str:
        """The field's value ("" when absent)."""
        return self._fields.get(name, "")

    def list(self, name: str) -> tuple[str, ...]:
        """A field stored as a list (see the class docstring)."""
        return tuple(v for v in self.text(name).split(LIST_SEPARATOR) if v)

    def replace(self, **fields: str | Iterable[str]) -> Draft:
        """This draft with ``fields`` set (an empty value removes the field)."""
        merged: dict[str, str | Iterable[str]] = {**self._fields, **fields}
        return Draft(**merged)


def _joined(name: str, values: Iterable[str]) -> str:
    items = list(values)
    bad = [v for v in items if not v or LIST_SEPARATOR in v]
    if bad:
        raise ValueError(
            f"draft list {name!r} holds values that are empty or contain {LIST_SEPARATOR!r}: {bad}"
        )
    return LIST_SEPARATOR.join(items)


@lru_cache(maxsize=4096)
def _quoted(value: str) -> str:
    """A field's value as written in a custom id. Kept: a panel measures the same few option values on every
    click, and ``quote`` is slow Python."""
    return quote(value, safe=_SAFE)


def body_of(draft: Draft) -> str:
    """The draft's fields as they are written in the custom id."""
    return ";".join(f"{name}={_quoted(value)}" for name, value in draft.items())


def fits(draft: Draft) -> bool:
    return len(body_of(draft)) <= DRAFT_ROOM


def encode_draft(draft: Draft, phase_no: int) -> str:
    """The custom id carrying ``draft`` for phase ``phase_no``; raises :class:`DraftTooLong` rather than cut."""
    if not 0 <= phase_no < 10**MAX_PHASE_DIGITS:
        raise DraftTooLong(f"phase {phase_no} has more than {MAX_PHASE_DIGITS} digits")
    body = body_of(draft)
    if len(body) > DRAFT_ROOM:
        raise DraftTooLong(
            f"{draft!r} takes {len(body)} characters in a custom id; a draft may take {DRAFT_ROOM} so that it fits"
            f" Discord's {CUSTOM_ID_LIMIT}-character limit in any phase (the panel plug-in must keep it in bounds)"
        )
    return f"{PREFIX}{phase_no}:{body}"


def decode_draft(custom_id: str) -> tuple[int, Draft] | None:
    """``(phase, draft)`` from a custom id made by :func:`encode_draft`; None for any other custom id.

    Custom ids are forgeable: malformed fields are dropped, and the plug-in re-checks every value it is given."""
    m = _DRAFT_ID.match(custom_id)
    if not m:
        return None
    fields: dict[str, str] = {}
    for part in m.group("body").split(";"):
        name, sep, value = part.partition("=")
        if sep and _NAME.match(name):
            fields[name] = unquote(value)
    return int(m.group("phase")), Draft(**fields)


def most_that_fit(draft: Draft, name: str, values: Sequence[str]) -> int:
    """How many of ``values`` the field ``name`` can hold, whichever of them are chosen (the longest count), with
    the rest of ``draft`` as it is. A plug-in gives this as a select's ``max_values``."""
    longest = sorted(values, key=len, reverse=True)
    if not _NAME.match(name) or any(not v or LIST_SEPARATOR in v for v in longest):
        return _most_that_fit_by_trying(draft, name, longest)  # refused as the draft would refuse it
    # the body is "{others};{name}={v1},{v2},…" and quoting is per character: add each value's length once
    # (a panel sizes a select of dozens of options on every click; trying each count was quadratic)
    others = body_of(draft.replace(**{name: ""}))
    used = len(others) + (1 if others else 0) + len(name) + 1 - len(LIST_SEPARATOR)
    count = 0
    for value in longest:
        used += len(LIST_SEPARATOR) + len(_quoted(value))
        if used > DRAFT_ROOM:
            break
        count += 1
    return count


def _most_that_fit_by_trying(draft: Draft, name: str, longest: Sequence[str]) -> int:
    count = 0
    while count < len(longest) and fits(draft.replace(**{name: longest[: count + 1]})):
        count += 1
    return count


def keep_fitting(draft: Draft, name: str, values: Iterable[str]) -> Draft:
    """``draft`` with ``values`` in the field ``name``, as many of them (in order) as fit."""
    kept: list[str] = []
    for value in values:
        if fits(draft.replace(**{name: [*kept, value]})):
            kept.append(value)
    return draft.replace(**{name: kept})
