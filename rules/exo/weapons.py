"""Ship weapons and the EXO-1.3 notation: type, then mount, then count (``Lx3``, ``Pl(D)``, ``Lpx2``, ``APt``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.errors import InvalidOrderError
from rules.exo.tables import tables
from rules.serial import serializable


@serializable
class Mount(StrEnum):
    """Where a weapon points (EXO-1.3)."""

    BOW = "bow"  # no letter: sections with F
    BROADSIDE = "broadside"  # l: one side, D starboard or I port
    STERN = "stern"  # p: sections with P
    TURRET = "turret"  # t: any section when a gunner mans it, else as bow


MOUNT_LETTERS = {"": Mount.BOW, "l": Mount.BROADSIDE, "p": Mount.STERN, "t": Mount.TURRET}
STARBOARD, PORT = "D", "I"


@serializable
@dataclass(frozen=True, slots=True, kw_only=True)
class Weapon:
    """One weapon of a ship's expanded list (``Lx3`` gives three). ``type`` is L, M, P or T after aliases."""

    code: str  # one weapon as written, side included once known: "L", "Pl(D)", "APt"
    type: str
    mount: Mount
    side: str = ""  # broadside only: "D" (starboard) or "I" (port); "" until decided (EXO-1.3)
    disabled: bool = False  # EXO-3.5 internal hit
    beyond_repair: bool = False  # EXO-6.1 repair fumble

    @property
    def usable(self) -> bool:
        return not self.disabled and not self.beyond_repair

    def with_side(self, side: str) -> Weapon:
        base = self.code.split("(")[0]
        return replace(self, side=side, code=f"{base}({side})")


def _error(notation: str, token: str, why: str) -> InvalidOrderError:
    return InvalidOrderError(
        f"Weapon {notation!r}: {why} (near {token!r}).",
        code="exo.weapon_notation",
        rule="EXO-1.3",
        params={"notation": notation, "token": token, "why": why},
    )


def parse_weapon(notation: str) -> tuple[Weapon, ...]:
    """``"Lx3"`` → three bow light weapons; ``"Pl(D)"`` → one starboard heavy broadside (EXO-1.3).

    Bad notation raises ``InvalidOrderError`` naming the bad token.
    """
    text = notation.strip()
    t = tables()
    types = sorted((*t.weapon_types, *t.aliases), key=len, reverse=True)
    type_code = next((c for c in types if text.startswith(c)), None)
    if type_code is None:
        head = re.match(r"^[A-Z]+", text)
        token = (head.group(0) if head else "") or text[:1] or notation
        known = ", ".join(sorted(t.weapon_types)) + ", " + ", ".join(sorted(t.aliases))
        raise _error(notation, token, f"unknown weapon type (use {known})")
    rest = text[len(type_code) :]
    m = re.match(r"^(?P<mount>[lpt]?)(?P<side>\([DI]\))?(?P<count>x\d+)?$", rest)
    if m is None:
        bad = re.match(r"^[lpt]?(\([DI]\))?(x\d+)?", rest)
        token = rest[len(bad.group(0)) if bad else 0 :] or rest
        raise _error(notation, token, "expected a mount (l, p, t), an optional side (D) or (I), then xN")
    mount = MOUNT_LETTERS[m.group("mount")]
    side = (m.group("side") or "")[1:2]
    if side and mount is not Mount.BROADSIDE:
        raise _error(notation, m.group("side") or "", "only broadside weapons (l) take a side")
    count = int(m.group("count")[1:]) if m.group("count") else 1
    if not 1 <= count <= 20:
        raise _error(notation, m.group("count") or "", "the count must be between 1 and 20")
    code = type_code + m.group("mount") + (f"({side})" if side else "")
    kind = t.aliases.get(type_code, type_code)
    return tuple(Weapon(code=code, type=kind, mount=mount, side=side) for _ in range(count))


def parse_weapons(notations: list[str] | tuple[str, ...]) -> tuple[Weapon, ...]:
    out: list[Weapon] = []
    for n in notations:
        out.extend(parse_weapon(n))
    return tuple(out)
