"""What ``/unit arcs`` shows of a unit: its firing sections (as far as its weapons reach), a picture each.

A hex on the boundary of two sections belongs to both (EXO-1.4, MECH-1.3): drawn in one picture, two sections
would have to share it (striped), and the frame would hold every direction the unit fires in, its counters too
small to read. So each section gets a picture of its own, framed on it, with its own legend.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.hexgrid import Hex

MAX_PICTURES = 10  # attachments Discord takes on one message


def pictured(sections: Mapping[str, frozenset[Hex]], section: str | None) -> list[list[str]]:
    """The sections of each picture: the one asked for, else every one with a hex. A section joins a picture
    whose sections it borders without sharing a hex (a line of sight split into seen and blocked hexes, SK-3.2),
    else starts its own, framed on it alone; at most Discord's limit of pictures."""
    if section is not None:
        return [[section]] if section in sections else []
    groups: list[tuple[list[str], set[Hex]]] = []
    for name, hexes in sections.items():
        if not hexes:
            continue
        home = next((g for g in groups if not g[1] & hexes and _borders(g[1], hexes)), None)
        if home is None:
            groups.append(([], set()))
            home = groups[-1]
        home[0].append(name)
        home[1].update(hexes)
    return [names for names, _ in groups][:MAX_PICTURES]


def _borders(group: set[Hex], hexes: frozenset[Hex]) -> bool:
    return any(n in group for h in hexes for n in h.neighbors())
