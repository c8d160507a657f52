"""Why the director's hand may not put a unit on a hex (``Ruleset.check_placement``): the refusals every ruleset
shares, each citing the rule of the ruleset that forbids it, so the director reads the reason and the rule."""

from __future__ import annotations

from rules.errors import IllegalOrderError, Phrase
from rules.hexgrid import Hex
from rules.state import Unit


def off_board(to: Hex, rule: str = "HEX-1") -> IllegalOrderError:
    """``to`` is not a hex of the board (HEX-1: a bounded board has ``width`` × ``height`` hexes)."""
    return IllegalOrderError(
        f"{to.label} is off the board.", code="place.off_board", rule=rule, params={"hex": to.label}
    )


def impassable(to: Hex, kind: str, rule: str) -> IllegalOrderError:
    """``to`` has terrain (or a marker) of ``kind`` that no unit may enter, so none may stand there either."""
    terrain = Phrase(f"render.terrain.{kind}", fallback=kind)
    return IllegalOrderError(
        f"No unit can stand on {to.label} ({kind}).",
        code="place.impassable",
        rule=rule,
        params={"hex": to.label, "terrain": terrain},
    )


def occupied(to: Hex, other: Unit, rule: str) -> IllegalOrderError:
    """``to`` is held by ``other`` and the ruleset lets no second unit in (the director sees every unit, so the
    refusal, which only the director reads, names it)."""
    return IllegalOrderError(
        f"{other.name} is already on {to.label}.",
        code="place.occupied",
        rule=rule,
        params={"hex": to.label, "other": other.name},
    )
