"""OCS orders (JSON-simple tables) and their parsing. Syntax only: legality is in :mod:`rules.ocs.legality`.

The director (actor ``"director"``) drives the procedure::

    {"combat": {"attackers": ["pz21", "pz15"], "defender": "0606", "kind": "regular",
                "ar_attacker": "pz21", "ar_defender": "rtr7"}}        open a combat (kind, ARs optional)
    {"move": {"unit": "pz21", "to": "0607"}}                           a free move, logged
    {"mode": {"unit": "pz21", "to": "dg"}}                             a mode change (normal, dg, strategic)
    {"cancel": {"combat": 2}}                                          call an open combat off
    {"end_turn": {}}                                                   end the combat phase: the next turn

A side answers for the combat its unit takes part in (the director may answer instead, naming the combat with
``"combat": n`` when more than one combat waits for that kind of answer)::

    {"ar": "pz21"}                                  OCS-2: the unit whose Action Rating the side uses
    {"losses": ["pz15", "pz15"]}                    the steps beyond the first (a unit once per step it loses);
                                                    the defender may list up to ``option`` more, one step per
                                                    option hex it does not retreat
    {"retreats": {"rtr7": "0708", "rb3": "0709"}}   a hex for every surviving defender unit

A unit may also move itself or change its own mode with ``move``/``mode`` (``"unit"`` then defaults to it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from rules.errors import InvalidOrderError, Phrase
from rules.hexgrid import Hex
from rules.ocs.model import ASKS, KINDS, MODES, REGULAR, combat_of, ext_of
from rules.ruleset import DIRECTOR, Order
from rules.serial import serializable
from rules.state import EncounterState

ANSWERS = ("ar", "losses", "retreats")
PROCEDURE = ("combat", "move", "mode", "cancel", "end_turn")
COMBAT_KEYS = frozenset({"attackers", "defender", "kind", "ar_attacker", "ar_defender"})
#: which answer each waiting stage takes
ANSWER_OF: dict[str, str] = {
    "ar_attacker": "ar",
    "ar_defender": "ar",
    "attacker_losses": "losses",
    "defender_losses": "losses",
    "retreat": "retreats",
}
assert set(ANSWER_OF) == set(ASKS)


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class OpenCombat(Order):
    """Declare a combat (OCS-2): attackers adjacent to the defender hex ``at``; ARs may be named up front."""

    attackers: tuple[str, ...]
    at: Hex
    kind: str = REGULAR
    ar_attacker: str | None = None
    ar_defender: str | None = None


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class FreeMove(Order):
    """The seed gives no movement rules: ``who`` moves to ``to``, and the move is logged."""

    who: str
    to: Hex


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ModeChange(Order):
    """OCS-1: ``who`` goes into ``mode``."""

    who: str
    mode: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class CancelCombat(Order):
    combat: int


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class EndTurn(Order):
    """The director ends the combat phase (no combat left open) and the next turn begins."""


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class ChooseAr(Order):
    """OCS-2: the unit whose AR a side uses in ``combat``."""

    combat: int
    choice: str


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Losses(Order):
    """OCS-6: the steps a side loses beyond the first, one entry per step (option steps included)."""

    combat: int
    losses: tuple[str, ...]


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Retreats(Order):
    """OCS-6: where each surviving defender unit retreats, as (unit, hex) pairs."""

    combat: int
    retreats: tuple[tuple[str, Hex], ...]


def bad(actor: str, message: str, key: str, /, **params: object) -> InvalidOrderError:
    """An order that cannot be read: ``message`` is the English text, ``key`` (``syntax.ocs.*``) and ``params``
    the same words for the reader's language (the ``detail`` of ``errors.ocs.syntax``)."""
    return InvalidOrderError(
        f"{actor}: {message}", code="ocs.syntax", params={"unit": actor, "detail": Phrase(key, params)}
    )


def parse(state: EncounterState, actor: str, raw: Any) -> Order:
    """A raw table → an order (``InvalidOrderError`` on bad syntax)."""
    if not isinstance(raw, Mapping):
        raise bad(
            actor,
            'an order is a table such as {"ar": "pz21"} or {"move": {"unit": "pz21", "to": "0607"}}',
            "syntax.ocs.table",
        )
    table = cast(Mapping[str, Any], raw)
    answer = [k for k in ANSWERS if k in table]
    if answer:
        extra = sorted(set(table) - {answer[0], "combat"})
        if len(answer) > 1 or extra:
            got = ", ".join(sorted(table))
            message = f"one answer at a time, with an optional 'combat' (got {got})"
            raise bad(actor, message, "syntax.ocs.one_answer", got=got)
        return _answer(state, actor, answer[0], table)
    if len(table) != 1 or next(iter(table)) not in PROCEDURE:
        keys = ", ".join(str(k) for k in table) or "nothing"
        known = ", ".join((*PROCEDURE, *ANSWERS))
        raise bad(actor, f"write one of {known} (got {keys})", "syntax.ocs.one_of", known=known, got=keys)
    ((key, value),) = table.items()
    if not isinstance(value, Mapping):
        example = _EXAMPLES[key]
        raise bad(
            actor,
            f"'{key}' takes a table, such as {example}",
            "syntax.ocs.takes_table",
            key=key,
            example=example,
        )
    body = cast(Mapping[str, Any], value)
    if key == "combat":
        return parse_combat(actor, body)
    if key == "cancel":
        _only(actor, key, body, {"combat"})
        return CancelCombat(unit=actor, combat=_number(actor, body.get("combat"), "combat"))
    if key == "end_turn":
        _only(actor, key, body, set())
        return EndTurn(unit=actor)
    _only(actor, key, body, {"unit", "to"})
    who = body.get("unit", actor if actor != DIRECTOR else None)
    if not isinstance(who, str) or not who:
        example = _EXAMPLES[key]
        raise bad(
            actor, f"'{key}' needs the unit: {example}", "syntax.ocs.needs_unit", key=key, example=example
        )
    if key == "move":
        return FreeMove(unit=actor, who=who, to=_hex(actor, body.get("to"), "to"))
    mode = body.get("to")
    if mode not in MODES:
        known = ", ".join(MODES)
        raise bad(
            actor, f"a mode is one of {known}, got {mode!r}", "syntax.ocs.mode", known=known, got=repr(mode)
        )
    return ModeChange(unit=actor, who=who, mode=str(mode))


_EXAMPLES = {
    "combat": '{"attackers": ["pz21"], "defender": "0606", "kind": "regular"}',
    "move": '{"unit": "pz21", "to": "0607"}',
    "mode": '{"unit": "pz21", "to": "dg"}',
    "cancel": '{"combat": 1}',
    "end_turn": "{}",
}


def parse_combat(actor: str, body: Mapping[str, Any]) -> OpenCombat:
    """The body of ``{"combat": {...}}`` (also a scenario's ``orders.combat`` entry, DESIGN §7.2)."""
    _only(actor, "combat", body, COMBAT_KEYS)
    attackers = body.get("attackers")
    if not isinstance(attackers, list | tuple) or not attackers:
        raise bad(
            actor,
            'a combat needs its attackers, such as "attackers": ["pz21", "pz15"]',
            "syntax.ocs.attackers",
        )
    ids = [a for a in cast(list[Any], attackers) if isinstance(a, str) and a]
    if len(ids) != len(cast(list[Any], attackers)) or len(set(ids)) != len(ids):
        raise bad(actor, "attackers are unit ids, each once", "syntax.ocs.attackers_once")
    kind = body.get("kind", REGULAR)
    if kind not in KINDS:
        known = ", ".join(KINDS)
        raise bad(
            actor,
            f"the attack type is {' or '.join(KINDS)}, got {kind!r}",
            "syntax.ocs.kind",
            known=known,
            got=repr(kind),
        )
    ar = {k: body.get(k) for k in ("ar_attacker", "ar_defender")}
    for k, v in ar.items():
        if v is not None and (not isinstance(v, str) or not v):
            raise bad(actor, f"{k} is a unit id, got {v!r}", "syntax.ocs.ar_unit", key=k, got=repr(v))
    return OpenCombat(
        unit=actor,
        attackers=tuple(ids),
        at=_hex(actor, body.get("defender"), "defender"),
        kind=str(kind),
        ar_attacker=cast(str | None, ar["ar_attacker"]),
        ar_defender=cast(str | None, ar["ar_defender"]),
    )


def _answer(state: EncounterState, actor: str, key: str, table: Mapping[str, Any]) -> Order:
    combat = _which_combat(state, actor, key, table.get("combat"))
    value = table[key]
    if key == "ar":
        if not isinstance(value, str) or not value:
            raise bad(actor, 'name the AR unit: {"ar": "pz21"}', "syntax.ocs.ar")
        return ChooseAr(unit=actor, combat=combat, choice=value)
    if key == "losses":
        if not isinstance(value, list | tuple) or not all(
            isinstance(v, str) and v for v in cast(list[Any], value)
        ):
            raise bad(
                actor,
                'losses is a list of unit ids, one per step: {"losses": ["pz15"]} (or [])',
                "syntax.ocs.losses",
            )
        return Losses(unit=actor, combat=combat, losses=tuple(cast(list[str], value)))
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in cast(Mapping[Any, Any], value)):
        raise bad(
            actor, 'retreats maps each unit to a hex: {"retreats": {"rtr7": "0708"}}', "syntax.ocs.retreats"
        )
    pairs = tuple(
        (uid, _hex(actor, where, f"retreats.{uid}")) for uid, where in cast(Mapping[str, Any], value).items()
    )
    return Retreats(unit=actor, combat=combat, retreats=pairs)


def _which_combat(state: EncounterState, actor: str, key: str, given: Any) -> int:
    """The combat an answer is for: as given, else the actor's own combat, else (the director) the one combat
    waiting for that kind of answer. 0 when it cannot be told (the rules then refuse it, naming the problem)."""
    if given is not None:
        return _number(actor, given, "combat")
    if actor != DIRECTOR:
        own = combat_of(state, actor)
        return own.id if own is not None else 0
    waiting = [c.id for c in ext_of(state).combats if ANSWER_OF.get(c.stage) == key]
    return waiting[0] if len(waiting) == 1 else 0


def _only(actor: str, key: str, body: Mapping[str, Any], allowed: frozenset[str] | set[str]) -> None:
    unknown = sorted(str(k) for k in body if k not in allowed)
    if unknown:
        known, extra = ", ".join(sorted(allowed)), ", ".join(unknown)
        message = f"'{key}' takes {known}; unknown: {extra}"
        raise bad(actor, message, "syntax.ocs.only", key=key, known=known, extra=extra)


def _number(actor: str, value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise bad(
            actor,
            f"{what} is a combat number (1, 2, …), got {value!r}",
            "syntax.ocs.combat",
            what=what,
            got=repr(value),
        )
    return value


def _hex(actor: str, value: Any, what: str) -> Hex:
    if not isinstance(value, str):
        raise bad(
            actor,
            f'{what} is a hex label such as "0606", got {value!r}',
            "syntax.ocs.hex",
            what=what,
            got=repr(value),
        )
    try:
        return Hex.parse(value)
    except ValueError:
        message = f'{what}: {value!r} is not a hex label such as "0606"'
        raise bad(actor, message, "syntax.ocs.hex_bad", what=what, got=repr(value)) from None
