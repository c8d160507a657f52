"""EXO-4.5's rulings as the director types them (``/director ruling``): words in, the pure functions of
rules/exo/director.py out.

- ``collision``: the pieces, and ``unit=N`` for a ship's damage: ``halcon pirata halcon=3`` (EXO-4.6);
- ``dock``: ``ship other``, and ``free`` to keep the docking ship's own velocity (EXO-4.7);
- ``board``: ``ship target crew…``, and ``captured`` when the boarders took the ship (EXO-4.8).
"""

from __future__ import annotations

from rules.errors import InvalidOrderError
from rules.exo.director import rule_boarding, rule_collision, rule_docking
from rules.ruleset import Change, Ruling
from rules.state import EncounterState


def _words_error(ruling: str, rule: str) -> InvalidOrderError:
    return InvalidOrderError(
        f"Write the {ruling} ruling as its help says.", code=f"exo.ruling_{ruling}_words", rule=rule
    )


def collision(state: EncounterState, words: tuple[str, ...]) -> Change:
    units: list[str] = []
    damage: dict[str, int] = {}
    for word in words:
        unit, _, amount = word.partition("=")
        if amount:
            if not amount.isdigit():
                raise _words_error("collision", "EXO-4.6")
            damage[unit] = int(amount)
        units.append(unit)
    if not units:
        raise _words_error("collision", "EXO-4.6")
    return rule_collision(state, units, damage)


def dock(state: EncounterState, words: tuple[str, ...]) -> Change:
    names = [w for w in words if w != "free"]
    if len(names) != 2:
        raise _words_error("dock", "EXO-4.7")
    return rule_docking(state, names[0], names[1], match_velocity="free" not in words)


def board(state: EncounterState, words: tuple[str, ...]) -> Change:
    names = [w for w in words if w != "captured"]
    if len(names) < 2:
        raise _words_error("board", "EXO-4.8")
    return rule_boarding(state, names[0], names[1], names[2:], captured="captured" in words)


RULINGS: dict[str, Ruling] = {
    "collision": Ruling("collision", "EXO-4.6", "ruling.exo.collision", collision),
    "dock": Ruling("dock", "EXO-4.7", "ruling.exo.dock", dock),
    "board": Ruling("board", "EXO-4.8", "ruling.exo.board", board),
}
