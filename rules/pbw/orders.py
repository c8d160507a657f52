"""pbw orders from scenario tables or panel data (syntax only; legality is :mod:`rules.pbw.legality`).

A declaration (DESIGN §7.4)::

    { segments = [{ action = "move", path = ["0304", "0305"] },
                  { action = "shoot", weapon = 1, target = "bob", aim = "torso" },
                  { action = "defend" }],
      disengage = false }

One to three segments: missing ones are skipped (``defend``); ``[{ action = "rest" }]`` rests the whole turn and
``[{ action = "treat", target = "bob", location = "ra" }]`` treats a wound the whole turn (PBW-6). A
change of intention before a segment (PBW-2) is one segment table plus the segment it is for::

    { segment = 2, action = "melee", target = "bob" }      { action = "keep" }   (no change)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from rules.errors import InvalidOrderError, Phrase
from rules.hexgrid import Hex
from rules.pbw.legality import ext_of
from rules.pbw.model import (
    ACTIONS,
    DEFEND_ACTION,
    DRAW,
    MELEE,
    MOVE,
    RELOAD,
    SEGMENTS,
    SHOOT,
    STOW,
    TREAT,
    WHOLE_TURN,
    Change,
    Character,
    Declaration,
    SegmentAction,
)
from rules.ruleset import Order
from rules.state import EncounterState

KEEP = "keep"
DECLARATION_KEYS = frozenset({"segments", "disengage"})
#: the keys a segment table may carry besides ``action``, by action
ACTION_KEYS: dict[str, frozenset[str]] = {
    MOVE: frozenset({"path"}),
    SHOOT: frozenset({"target", "weapon", "aim"}),
    MELEE: frozenset({"target", "weapon", "aim"}),
    RELOAD: frozenset({"weapon"}),
    DRAW: frozenset({"weapon"}),
    STOW: frozenset({"weapon"}),
    TREAT: frozenset({"target", "location"}),
}


def bad(unit_id: str, message: str, key: str, /, **params: object) -> InvalidOrderError:
    """An order that cannot be read: ``message`` is the English text, ``key`` (``syntax.pbw.*``) and ``params``
    the same words for the reader's language (the ``detail`` of ``errors.pbw.syntax``)."""
    return InvalidOrderError(
        f"{unit_id}: {message}", code="pbw.syntax", params={"unit": unit_id, "detail": Phrase(key, params)}
    )


def parse_order(state: EncounterState, unit_id: str, raw: Any) -> Order:
    """A table with ``segments`` is a declaration; anything else is a change of intention (or ``keep``)."""
    if raw == KEEP:
        return Change(unit=unit_id, segment=_current_segment(state), action=None)
    if not isinstance(raw, Mapping):
        raise bad(
            unit_id,
            'an order is a table: { segments = [...] } or { segment = 2, action = "..." }',
            "syntax.pbw.table",
        )
    table = cast(Mapping[str, Any], raw)
    if "segments" in table:
        return parse_declaration(state, unit_id, table)
    return parse_change(state, unit_id, table)


def parse_declaration(state: EncounterState, unit_id: str, table: Mapping[str, Any]) -> Declaration:
    _keys(unit_id, table, DECLARATION_KEYS, "a declaration", Phrase.of("syntax.pbw.in_declaration"))
    raw_segments = table.get("segments")
    if not isinstance(raw_segments, list) or not 1 <= len(cast(list[Any], raw_segments)) <= SEGMENTS:
        raise bad(unit_id, "segments is a list of one to three segment tables (PBW-1)", "syntax.pbw.segments")
    segments = [parse_segment(state, unit_id, s) for s in cast(list[Any], raw_segments)]
    # a whole-turn action (rest, treat) given once fills the turn; otherwise missing segments are skipped
    whole = (
        segments[0] if segments[0].action in WHOLE_TURN and all(s == segments[0] for s in segments) else None
    )
    filler = whole or DEFEND_ACTION
    segments += [filler] * (SEGMENTS - len(segments))
    disengage = table.get("disengage", False)
    if not isinstance(disengage, bool):
        raise bad(unit_id, "disengage is true or false", "syntax.pbw.disengage")
    return Declaration(unit=unit_id, segments=tuple(segments), disengage=disengage)


def parse_change(state: EncounterState, unit_id: str, table: Mapping[str, Any]) -> Change:
    segment = table.get("segment", _current_segment(state))
    if isinstance(segment, bool) or not isinstance(segment, int) or not 1 <= segment <= SEGMENTS:
        raise bad(unit_id, "segment is 1, 2 or 3", "syntax.pbw.segment")
    rest = {k: v for k, v in table.items() if k != "segment"}
    if rest.get("action") == KEEP:
        _keys(unit_id, rest, frozenset({"action"}), "a 'keep' answer", Phrase.of("syntax.pbw.in_keep"))
        return Change(unit=unit_id, segment=segment, action=None)
    return Change(unit=unit_id, segment=segment, action=parse_segment(state, unit_id, rest))


def parse_segment(state: EncounterState, unit_id: str, raw: Any) -> SegmentAction:
    if not isinstance(raw, Mapping):
        raise bad(unit_id, 'each segment is a table like { action = "defend" }', "syntax.pbw.segment_table")
    table = cast(Mapping[str, Any], raw)
    action = table.get("action")
    if action not in ACTIONS:
        known = ", ".join(ACTIONS)
        message = f"unknown action {action!r} (use one of {known})"
        raise bad(unit_id, message, "syntax.pbw.action", action=str(action), known=known)
    allowed = ACTION_KEYS.get(str(action), frozenset()) | {"action"}
    _keys(
        unit_id, table, allowed, f"a {action} segment", Phrase.of("syntax.pbw.in_segment", action=str(action))
    )
    path = _path(unit_id, table["path"]) if "path" in table else ()
    if action == MOVE and not path:
        raise bad(
            unit_id,
            'a move needs path = ["0304", "0305"], the hexes entered in order',
            "syntax.pbw.move_path",
        )
    target = _target(state, unit_id, table["target"]) if "target" in table else ""
    if action in (SHOOT, MELEE) and not target:
        raise bad(unit_id, f"{action} needs a target", "syntax.pbw.needs_target", action=str(action))
    weapon = table.get("weapon", 0)
    if isinstance(weapon, bool) or not isinstance(weapon, int) or weapon < 0:
        raise bad(
            unit_id, "weapon is the 1-based number of a weapon in the character's list", "syntax.pbw.weapon"
        )
    if action == DRAW and not weapon:
        raise bad(unit_id, "draw needs the weapon to draw (its number)", "syntax.pbw.draw")
    aim = table.get("aim", "")
    if not isinstance(aim, str):
        raise bad(unit_id, 'aim is a location such as "torso"', "syntax.pbw.aim")
    location = table.get("location", "")
    if action == TREAT and (not isinstance(location, str) or not location):
        raise bad(unit_id, 'treat needs the wounded location, such as location = "ra"', "syntax.pbw.location")
    if action == TREAT and not target:
        target = unit_id  # treating one's own wound (the seed: "intentar curarse las heridas")
    return SegmentAction(
        action=str(action), path=path, target=target, weapon=weapon, aim=aim, location=str(location)
    )


def _current_segment(state: EncounterState) -> int:
    return max(1, ext_of(state).segment)


def _keys(unit_id: str, table: Mapping[str, Any], allowed: frozenset[str], what: str, where: Phrase) -> None:
    """Refuse a key ``allowed`` does not name; ``what`` says where in English, ``where`` in the catalogs."""
    for key in table:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            message = f"unknown key {key!r} in {what} (allowed: {known})"
            raise bad(unit_id, message, "syntax.pbw.key", key=key, what=where, known=known)


def _path(unit_id: str, raw: Any) -> tuple[Hex, ...]:
    if not isinstance(raw, list):
        raise bad(unit_id, 'path is a list of hex labels like ["0304", "0305"]', "syntax.pbw.path")
    out: list[Hex] = []
    for item in cast(list[Any], raw):
        try:
            out.append(Hex.parse(str(item)))
        except ValueError:
            raise bad(
                unit_id, f"{item!r} is not a hex label like 0305", "syntax.pbw.hex", hex=str(item)
            ) from None
    return tuple(out)


def _target(state: EncounterState, unit_id: str, token: Any) -> str:
    """A character's id, or its name in any case."""
    wanted = str(token).lower()
    for u in state.units.values():
        if isinstance(u, Character) and (u.id.lower() == wanted or u.name.lower() == wanted):
            return u.id
    raise bad(unit_id, f"there is no character called {token!r}", "syntax.pbw.character", token=str(token))
