"""Alt text for the pictures the bot sends (Discord's attachment description), so a screen reader can follow the
game: the step, what moved (from → to), what was hit, who acts and where the units stand.

Built from the same :class:`render.scene.View` the picture is drawn from (FOG-1, NGT-9), so the text names only
units the picture shows: a unit the viewer cannot see is in neither. What was hit and who acts come from each
ruleset's and layer's overlay hooks (``Overlay.shots``, ``Overlay.hurt``, ``Overlay.acting``), as the picture's
firing lines and rings do, so a ruleset words its own attacks without a branch here. Plain text in the reader's
language, cut to what Discord keeps.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from data.i18n import t
from render.fog import view_for
from render.options import BoardSnapshot
from render.phase import phase_title
from rules.events import Event
from rules.hexgrid import Hex
from rules.ruleset import DIRECTOR, PUBLIC
from rules.state import EncounterState

#: Discord keeps at most this many characters of an attachment's description
LIMIT = 1024


def board_alt(
    state: EncounterState,
    events: Sequence[Event],
    *,
    viewer: str,
    locale: str,
    step: tuple[int, str] | None = None,
) -> str:
    """The alt text of the board ``viewer`` is shown after ``events`` (the events the picture is drawn with)."""
    # drawn pieces' modules load the image library: only once a picture is described
    from render.rulesets import overlays_for
    from render.scene import View

    view = View.of(BoardSnapshot(state, tuple(events)), view_for(state, viewer))
    names = {u.id: u.name for u in view.seen}
    at = {u.id: u.at for u in view.seen if u.on_board and u.at is not None}
    round_no, phase = step if step is not None else (state.round, state.phase)
    when = phase_title(state, round_no, phase, locale)
    parts = [t("render.alt.board", locale, view=_viewer_name(state, viewer, locale), when=when)]
    moves = [
        t("render.alt.move", locale, unit=names[m.unit], frm=m.frm.label, to=m.to.label)
        if m.frm is not None and m.to is not None
        else t("render.alt.off", locale, unit=names[m.unit])
        if m.to is None
        else t("render.alt.enter", locale, unit=names[m.unit], to=m.to.label)
        for m in view.moves
        if m.unit in names and (m.frm != m.to or m.frm is None)
    ]
    if moves:
        parts.append(t("render.alt.moved", locale, moves=_listed(moves)))
    overlays = overlays_for(state)
    shots = [*view.shots, *(s for o in overlays for s in o.shots(view))]
    hit = [s for s in shots if s.hit and not s.spent and s.target in names and s.shooter in names]
    hits = [
        t("render.alt.hit", locale, target=names[s.target], shooter=names[s.shooter], damage=s.damage)
        for s in hit
    ]
    struck = {s.target for s in hit}
    hits += [names[u] for u in sorted({u for o in overlays for u in o.hurt(view)} - struck) if u in names]
    if hits:
        parts.append(t("render.alt.hits", locale, hits=_listed(hits)))
    acting = sorted({u for o in overlays for u in o.acting(view)} & at.keys())
    if acting:
        parts.append(t("render.alt.acting", locale, units=_listed(_placed(acting, names, at, locale))))
    others = sorted(at.keys() - set(acting), key=lambda u: (names[u], u))
    if others:
        parts.append(t("render.alt.units", locale, units=_listed(_placed(others, names, at, locale))))
    return clip(" ".join(parts))


def _viewer_name(state: EncounterState, viewer: str, locale: str) -> str:
    if viewer in (DIRECTOR, PUBLIC):
        return t(f"render.viewer.{viewer}", locale)
    return t("render.viewer.side", locale, side=state.side(viewer).name_in(locale))


def _placed(units: Iterable[str], names: dict[str, str], at: dict[str, Hex], locale: str) -> list[str]:
    return [t("render.alt.at", locale, unit=names[u], hex=at[u].label) for u in units]


def _listed(items: Sequence[str]) -> str:
    return "; ".join(items)


def preview_alt(state: EncounterState, unit_id: str, path: Sequence[Hex], locale: str) -> str:
    """A panel's private preview: whose order it draws and the hexes its path goes through."""
    unit = state.units.get(unit_id)
    name = unit.name if unit is not None else unit_id
    hexes = [
        h.label for i, h in enumerate(path) if i == 0 or path[i - 1] != h
    ]  # a turn in place repeats a hex
    if not hexes or (len(hexes) == 1 and unit is not None and unit.at == path[0]):
        return clip(t("render.alt.preview_still", locale, unit=name))
    return clip(t("render.alt.preview", locale, unit=name, path=" → ".join(hexes)))


def arcs_alt(unit_name: str, sections: Sequence[str], locale: str) -> str:
    """A ``/unit arcs`` picture: the unit and the firing sections drawn, each in its own colour."""
    return clip(t("render.alt.arcs", locale, unit=unit_name, sections=", ".join(sections)))


def doll_alt(unit_name: str, locale: str) -> str:
    """A record sheet's damage doll: the same figures as the sheet's fields, drawn by location."""
    return clip(t("render.alt.doll", locale, unit=unit_name))


def replay_alt(title: str, view: str, frames: int, locale: str) -> str:
    """The replay's animation: whose view it is and how many steps it shows."""
    return clip(t("render.alt.replay", locale, name=title, view=view, frames=frames))


def clip(text: str) -> str:
    """Cut to what Discord keeps, at a whole item where one ends in reach."""
    if len(text) <= LIMIT:
        return text
    cut = text[: LIMIT - 1]
    end = cut.rfind("; ")
    return (cut[:end] if end > LIMIT // 2 else cut) + "…"


class Upload(NamedTuple):
    """A file of a post: its name, its bytes and, for a picture, its alt text (None: a text file)."""

    name: str
    data: bytes
    alt: str | None = None
