"""The skirmish action language (text → order). Syntax only: legality is in :mod:`rules.skirmish.legality`.

    turn <vertex>                      move <hex> [facing <vertex>]     back <hex> [facing <vertex>]
    (a path, step by step)             move <hex> <hex> ... [facing <vertex>]
    (half hexes, SK-2.5)               move <hex>/<hex> ...             move <hex> via <half hex> ...
    shoot <character>                  melee <character>                grenade <character> | grenade <hex>
    overwatch [ask|always|never]       act <description>                end | done
    fire | hold                        (answer to an overwatch question)

Hexes are labels (``0506``), vertices names (``NE-SE``) or 0-5, characters their id (or name).
"""

from __future__ import annotations

from typing import Any

from rules.errors import InvalidOrderError, Phrase
from rules.hexgrid import Hex, Vertex
from rules.ruleset import Order
from rules.skirmish.model import (
    Character,
    SkAct,
    SkEnd,
    SkGrenade,
    SkMelee,
    SkMove,
    SkOverwatch,
    SkReaction,
    SkShoot,
    SkTurn,
)
from rules.skirmish.tables import POLICIES, tables
from rules.state import EncounterState

VERBS = (
    "turn",
    "move",
    "back",
    "shoot",
    "melee",
    "grenade",
    "overwatch",
    "act",
    "end",
    "done",
    "fire",
    "hold",
)


def _bad(unit_id: str, message: str, token: str, key: str, /, **params: object) -> InvalidOrderError:
    """An action that cannot be read: ``message`` is the English text, ``key`` (``syntax.skirmish.*``) and
    ``params`` the same words for the reader's language (the ``detail`` of ``errors.skirmish.syntax``)."""
    return InvalidOrderError(
        f"{unit_id}: {message}",
        code="skirmish.syntax",
        params={"unit": unit_id, "token": token, "detail": Phrase(key, params)},
    )


def parse_action(state: EncounterState, unit_id: str, raw: Any) -> Order:
    if not isinstance(raw, str) or not raw.strip():
        raise _bad(
            unit_id,
            f"an action is text such as 'move 0506', got {raw!r}",
            str(raw),
            "syntax.skirmish.text",
            got=repr(raw),
        )
    words = raw.split()
    verb, args = words[0].lower(), words[1:]
    if verb not in VERBS:
        known = ", ".join(VERBS)
        message = f"unknown action {words[0]!r} (use one of {known})"
        raise _bad(unit_id, message, words[0], "syntax.skirmish.verb", verb=words[0], known=known)
    if verb in ("end", "done", "fire", "hold"):
        _no_more(unit_id, verb, args, 0)
        if verb in ("fire", "hold"):
            return SkReaction(unit=unit_id, answer=verb)
        return SkEnd(unit=unit_id)
    if verb == "act":
        if not args:
            raise _bad(
                unit_id, "'act' needs a description, e.g. 'act open the door'", raw, "syntax.skirmish.act"
            )
        return SkAct(unit=unit_id, description=" ".join(args))
    if verb == "overwatch":
        _no_more(unit_id, verb, args, 1)
        policy = args[0].lower() if args else tables().overwatch_default
        if policy not in POLICIES:
            known = ", ".join(POLICIES)
            message = f"overwatch policy {args[0]!r} is not one of {known}"
            raise _bad(unit_id, message, args[0], "syntax.skirmish.policy", policy=args[0], known=known)
        return SkOverwatch(unit=unit_id, policy=policy)
    if not args:
        if verb == "turn":
            raise _bad(unit_id, f"'{verb}' needs a vertex", verb, "syntax.skirmish.needs_vertex", verb=verb)
        raise _bad(unit_id, f"'{verb}' needs a target", verb, "syntax.skirmish.needs_target", verb=verb)
    if verb == "turn":
        _no_more(unit_id, verb, args, 1)
        return SkTurn(unit=unit_id, to=_vertex(unit_id, args[0]))
    if verb in ("move", "back"):
        return _move(unit_id, verb, args)
    _no_more(unit_id, verb, args, 1)
    if verb == "grenade":
        return _grenade_target(state, unit_id, args[0])
    target = resolve_character(state, unit_id, args[0])
    if verb == "shoot":
        return SkShoot(unit=unit_id, target=target)
    return SkMelee(unit=unit_id, target=target)


def _grenade_target(state: EncounterState, unit_id: str, token: str) -> SkGrenade:
    """SK-6.2: "personaje u objeto objetivo": a character (by id or name) or a hex (an object on the board)."""
    try:
        return SkGrenade(unit=unit_id, target=resolve_character(state, unit_id, token))
    except InvalidOrderError:
        pass
    try:
        return SkGrenade(unit=unit_id, at=Hex.parse(token))
    except ValueError:
        message = f"{token!r} is neither a character nor a hex label like 0506"
        raise _bad(unit_id, message, token, "syntax.skirmish.grenade_target", token=token) from None


def _move(unit_id: str, verb: str, args: list[str]) -> SkMove:
    """``move <hex>[/<hex>] [via <hex>] [facing <vertex>]`` (SK-2.2/2.3; two hexes and ``via``: SK-2.5), or a
    path of whole hexes, ``move <hex> <hex> … [facing <vertex>]`` (rules/skirmish/paths.py)."""
    first, _, second = args[0].partition("/")
    to = _hex(unit_id, first)
    astride = _hex(unit_id, second) if second else None
    rest = args[1:]
    hexes = [to]
    while verb == "move" and astride is None and rest and _is_hex(rest[0]):
        hexes.append(Hex.parse(rest[0]))
        rest = rest[1:]
    if len(hexes) > 1:
        facing = None
        if rest:
            if len(rest) != 2 or rest[0].lower() != "facing":
                usage = f"{verb} <hex> <hex> ... [facing <vertex>]"
                raise _bad(
                    unit_id, f"write '{usage}'", " ".join(rest), "syntax.skirmish.move_usage", usage=usage
                )
            facing = _vertex(unit_id, rest[1])
        return SkMove(unit=unit_id, to=hexes[-1], facing=facing, path=tuple(hexes[:-1]))
    options: dict[str, str] = {}
    while rest:
        key = rest[0].lower()
        if key not in ("via", "facing") or len(rest) < 2 or key in options:
            usage = f"{verb} {args[0]} [via <hex>] [facing <vertex>]"
            raise _bad(unit_id, f"write '{usage}'", " ".join(rest), "syntax.skirmish.move_usage", usage=usage)
        options[key], rest = rest[1], rest[2:]
    via = _hex(unit_id, options["via"]) if "via" in options else None
    facing = _vertex(unit_id, options["facing"]) if "facing" in options else None
    return SkMove(unit=unit_id, to=to, facing=facing, backward=verb == "back", astride=astride, via=via)


def resolve_character(state: EncounterState, unit_id: str, token: str) -> str:
    """A character id from its id or name, any case."""
    wanted = token.lower()
    for u in state.units.values():
        if isinstance(u, Character) and (u.id.lower() == wanted or u.name.lower() == wanted):
            return u.id
    raise _bad(
        unit_id, f"there is no character called {token!r}", token, "syntax.skirmish.no_character", token=token
    )


def _no_more(unit_id: str, verb: str, args: list[str], allowed: int) -> None:
    if len(args) > allowed:
        extra = " ".join(args[allowed:])
        message = f"unexpected {extra!r} after '{verb}'"
        raise _bad(unit_id, message, args[allowed], "syntax.skirmish.unexpected", extra=extra, verb=verb)


def _vertex(unit_id: str, token: str) -> int:
    try:
        return int(Vertex.parse(token))
    except ValueError:
        names = ", ".join(v.label for v in Vertex)
        message = f"{token!r} is not a vertex (use {names})"
        raise _bad(unit_id, message, token, "syntax.skirmish.vertex", token=token, known=names) from None


def _is_hex(token: str) -> bool:
    try:
        Hex.parse(token)
    except ValueError:
        return False
    return True


def _hex(unit_id: str, token: str) -> Hex:
    try:
        return Hex.parse(token)
    except ValueError:
        message = f"{token!r} is not a hex label like 0506"
        raise _bad(unit_id, message, token, "syntax.skirmish.hex", token=token) from None
