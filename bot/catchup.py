"""A catch-up for whoever was away: what changed since a player last gave an order, as their side saw it.

Built step by step from the snapshot chain, each step read through the same filter as a side's private message
(``rules.seen.seen_events``, FOG-1, NGT-9: a unit counts only when the side saw it before and after the step), and
the start and the end compared through the side's own view: a unit moved when the side saw it at both ends, was
newly seen or lost from view when it saw it at one end only. Damage is what the side's boards would have shown:
the firing lines and hurt marks of each step's overlays (``Overlay.shots``, ``Overlay.hurt``), so a ruleset
words its own attacks without a branch here. Nothing is read of the full state of a step but through that view.

The text is a phone-sized summary in the reader's language: a few lines, the rest counted ("… and 3 more").
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from bot.alt_text import board_alt, clip
from bot.imaging import board_png
from bot.names import shown_name
from bot.permissions import Actor
from bot.results import refuse
from bot.service.base import ServiceBase
from bot.service.replay import rule_events
from bot.storage.base import PHASE_RESOLVED, Encounter, HistoryStep, UndoneStep
from bot.text.account import describe, unit_name
from data.i18n import t
from render.fog import view_for
from render.options import BoardSnapshot
from render.phase import phase_title
from rules.events import (
    DirectorOverride,
    Event,
    Note,
    PhaseStarted,
    RollMade,
    ShotResolved,
    UnitDestroyed,
    UnitMoved,
)
from rules.hexgrid import Hex
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, Visibility
from rules.seen import seen_between, seen_events
from rules.serial import from_json
from rules.state import EncounterState

#: the most items a catch-up lists before it counts the rest: a phone's screen, not a log
MAX_ITEMS = 6
#: events that alone make no news of a step: its moves show from where units stood and stand now
QUIET = (UnitMoved, RollMade, PhaseStarted)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the chain: the state it started from, the state it left and the events that made it."""

    before: EncounterState
    after: EncounterState
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Hit:
    """Damage the viewer saw dealt: ``shooter`` "" when it came from the dark (NGT-9); several hits between the
    same two units add up."""

    shooter: str
    target: str
    damage: int


@dataclass(frozen=True, slots=True)
class CatchUp:
    """What ``viewer`` (a side or the director) may know changed between ``since`` and ``state``."""

    viewer: str
    since: EncounterState
    state: EncounterState
    acted: bool  # False: the reader never gave an order, so the catch-up runs from the start
    told: bool = False  # it runs from a catch-up the reader was shown after their last order
    moved: tuple[tuple[str, Hex, Hex], ...] = ()
    hits: tuple[Hit, ...] = ()
    damaged: tuple[str, ...] = ()  # hurt by a ruleset's own events, with no firing line
    destroyed: tuple[str, ...] = ()
    seen: tuple[tuple[str, Hex], ...] = ()
    lost: tuple[tuple[str, Hex], ...] = ()
    director: tuple[Event, ...] = ()
    undone: int = 0
    deadline: datetime | None = None
    #: the events its picture is drawn with: the hits' firing lines and hurt marks, no trail of a single step
    marks: tuple[Event, ...] = field(default=(), repr=False)

    @property
    def empty(self) -> bool:
        """Nothing the viewer can see changed (a deadline alone is no news)."""
        return not (
            self.moved
            or self.hits
            or self.damaged
            or self.destroyed
            or self.seen
            or self.lost
            or self.director
            or self.undone
        )

    @property
    def ghosts(self) -> tuple[tuple[str, Hex], ...]:
        """(unit, hex it stood on) for the picture: where each moved unit was (render/ghosts.py)."""
        return tuple((uid, frm) for uid, frm, _ in self.moved)


def build(
    since: EncounterState,
    steps: Sequence[Step],
    viewer: str,
    *,
    acted: bool = True,
    undone: int = 0,
    deadline: datetime | None = None,
) -> CatchUp:
    """The catch-up of ``viewer`` from ``since`` through ``steps`` (oldest first); ``undone``: the steps the
    director took back meanwhile that ``viewer`` could read something of."""
    now = steps[-1].after if steps else since
    hits: dict[tuple[str, str], int] = {}
    damaged: set[str] = set()
    destroyed: set[str] = set()
    director: list[Event] = []
    marks: list[Event] = []
    sights: dict[int, Visibility] = {}

    def sight(state: EncounterState) -> Visibility:
        # each state's sight once (at night it is most of the work); every state lives as long as ``steps``
        vis = sights.get(id(state))
        if vis is None:
            vis = sights[id(state)] = view_for(state, viewer)
        return vis

    for step in steps:
        if all(isinstance(e, QUIET) for e in step.events):
            continue  # moves show from where units stood and stand; rolls alone hurt nobody
        shown = (
            tuple(step.events)
            if viewer == DIRECTOR
            else seen_between(
                step.before, step.after, step.events, sight(step.before).units, sight(step.after).units
            )
        )
        _step_damage(step.after, shown, sight(step.after), hits, damaged, marks)
        destroyed.update(e.unit for e in shown if isinstance(e, UnitDestroyed))
        director.extend(e for e in shown if _concerns(e, viewer))
    then_sees = sight(since).units
    now_sees = sight(now).units
    both = then_sees & now_sees
    for uid in sorted(both):
        old, new = since.units.get(uid), now.units.get(uid)
        if old is not None and new is not None and new.destroyed and not old.destroyed:
            destroyed.add(uid)
    moved = tuple(
        (uid, frm, to)
        for uid in sorted(both)
        if uid in since.units
        and uid in now.units
        and (frm := since.units[uid].at) is not None
        and (to := now.units[uid].at) is not None
        and frm != to
    )
    stranger = {u.id for u in now.units.values() if u.side != viewer}
    seen = tuple(
        (uid, at)
        for uid in sorted((now_sees - then_sees) & stranger)
        if (at := now.units[uid].at) is not None and not now.units[uid].destroyed
    )
    lost: list[tuple[str, Hex]] = []
    for uid in sorted((then_sees - now_sees) & stranger):
        was = since.units.get(uid)
        if was is not None and was.at is not None and not was.destroyed:
            lost.append((uid, was.at))
    struck = {target for _, target in hits}
    return CatchUp(
        viewer=viewer,
        since=since,
        state=now,
        acted=acted,
        moved=moved,
        hits=tuple(Hit(s, tg, d) for (s, tg), d in hits.items()),
        damaged=tuple(sorted(damaged - struck - destroyed)),
        destroyed=tuple(sorted(destroyed)),
        seen=seen,
        lost=tuple(lost),
        director=tuple(director),
        undone=undone,
        deadline=deadline,
        marks=tuple(marks),
    )


def _step_damage(
    after: EncounterState,
    shown: tuple[Event, ...],
    vis: Visibility,
    hits: dict[tuple[str, str], int],
    damaged: set[str],
    marks: list[Event],
) -> None:
    """The hits of one step as the viewer's board of it draws them (its firing lines and hurt marks)."""
    # the overlays' modules load the image library: only once a step with events is read
    from render.rulesets import overlays_for
    from render.scene import View

    view = View.of(BoardSnapshot(after, shown), vis)
    overlays = overlays_for(after)
    shots = [*view.shots, *(s for o in overlays for s in o.shots(view))]
    for s in shots:
        if s.hit and not s.spent:
            hits[(s.shooter, s.target)] = hits.get((s.shooter, s.target), 0) + s.damage
    for e in shown:
        if isinstance(e, Note) and e.key == "shot_from_dark" and dict(e.args).get("hit"):
            hits[("", e.unit)] = hits.get(("", e.unit), 0) + int(dict(e.args).get("damage", 0))
    hurt = {u for o in overlays for u in o.hurt(view)}
    damaged.update(u for u in hurt if view.vis.sees(u))
    if any(s.hit and not s.spent for s in shots) or hurt:
        # the step's own marks, without its rolls, misses and trails: the picture shows what hurt
        marks.extend(
            e
            for e in view.events
            if not isinstance(e, UnitMoved | RollMade) and not (isinstance(e, ShotResolved) and not e.hit)
        )


def _concerns(event: Event, viewer: str) -> bool:
    """A director's change the viewer may read (``seen_events`` let it through: every unit it names was seen
    before and after); the director knows their own hand."""
    return isinstance(event, DirectorOverride) and viewer != DIRECTOR


# --- reading it from storage ------------------------------------------------------------------------------------


async def viewers_of(service: ServiceBase, meta: Encounter, actor: Actor) -> list[str]:
    """Whose view ``actor``'s catch-up is in: each side they play (in the scenario's order), else the director's
    when they direct. Refuses anyone else, privately, saying how to take part."""
    reading = await service.read(meta.id)
    state = reading.state
    mine: set[str] = set()
    for p in reading.parts:
        if p.user_id != actor.user_id or p.role != "player":
            continue
        unit = state.units.get(p.unit or "")
        side = p.side or (unit.side if unit is not None else None)
        if side:
            mine.add(side)
    sides = [s.id for s in state.sides if s.id in mine]
    if sides:
        return sides
    if await service.is_director(meta, actor):
        return [DIRECTOR]
    raise refuse("catchup.not_playing", "You have no unit here, so there is nothing to catch up on.")


async def last_act(service: ServiceBase, encounter_id: int, user_id: int) -> int:
    """The log number of the last order ``user_id`` gave in the encounter (0: none yet): asked of every panel
    sent, so read from the orders' own rows, not by decoding every order of the game."""
    return await service.storage.last_order_seq(encounter_id, user_id)


async def catch_up(
    service: ServiceBase, encounter_id: int, user_id: int, viewer: str, *, after: int = 0
) -> CatchUp:
    """``viewer``'s catch-up for ``user_id``: since the last order that person gave (their last act), or the
    start when they never gave one; ``after``: a later point they were already told of (a catch-up shown)."""
    storage = service.storage
    acted = await last_act(service, encounter_id, user_id)
    since_seq = max(acted, after)
    chain = await storage.snapshot_chain(encounter_id)
    undone = await storage.undone_steps(encounter_id, after_seq=since_seq)
    reading = await service.read(encounter_id)
    deadline = await storage.deadline_of(encounter_id)
    due = deadline.due_at if deadline is not None and deadline.phase_no == reading.phase_no else None
    # every state after the reader's last act is decoded: off the event loop
    found = await asyncio.to_thread(_assemble, chain, since_seq, undone, viewer, due)
    return replace(found, acted=acted > 0 and acted >= after, told=after > acted)


#: the settings note (bookkeeping, no event) of how far a person's last catch-up went: their next panel does not
#: repeat it
SHOWN = "catchup_shown_{user}"
#: the most items a panel's catch-up lists: the panel is for giving an order
PANEL_ITEMS = 4


async def note_shown(service: ServiceBase, encounter_id: int, user_id: int) -> None:
    """``user_id`` has been shown what happened up to now."""
    last = await service.storage.last_seq(encounter_id)
    await service.storage.note_settings(encounter_id, **{SHOWN.format(user=user_id): last})


@dataclass(frozen=True, slots=True)
class PanelNews:
    """What a panel opens with: the catch-up's lines, and its picture (None: it could not be drawn) with its alt
    text."""

    text: str
    picture: bytes | None
    alt: str


async def panel_news(
    service: ServiceBase, encounter_id: int, user_id: int, unit_id: str, locale: str, scheme: str = "standard"
) -> PanelNews | None:
    """The catch-up a panel for ``unit_id`` opens with (None: none); the caller notes it shown
    (:func:`note_shown`) once the panel reached the player (closed DMs: the next panel carries it).
    ``scheme``: the reader's colour scheme for its picture.

    Only for someone who sat out at least a whole round since their last order and their last catch-up: a player
    who acts every round followed it in the channel's posts (exo: every round's panel would only repeat the
    account just posted), so their panel adds nothing. Nor for a side that gets its own board and account by DM
    after every step (NGT-9): those private messages told it already; ``/encounter catchup`` still sums them up."""
    reading = await service.read(encounter_id)
    state = reading.state
    unit = state.units.get(unit_id)
    if unit is None:
        return None
    try:
        private = unit.side in ruleset_for(state).private_views(state)
    except KeyError:
        private = False
    if private:
        return None
    storage = service.storage
    shown = (await storage.get_encounter(encounter_id)).settings.get(SHOWN.format(user=user_id))
    told = shown if isinstance(shown, int) else 0
    since = max(told, await last_act(service, encounter_id, user_id))
    # the cheap test first: two rounds on are two steps on at least (the first two are enough to know: a player
    # who never gave an order would otherwise have every step of the game decoded on each panel)
    if len(await storage.events(encounter_id, since_seq=since, types=(PHASE_RESOLVED,), limit=2)) < 2:
        return None
    found = await catch_up(service, encounter_id, user_id, unit.side, after=told)
    if found.empty or found.state.round < found.since.round + 2:
        return None
    text = "\n".join(lines(replace(found, deadline=None), locale, limit=PANEL_ITEMS))
    png = await board_png(
        found.state,
        found.marks,
        viewer=unit.side,
        locale=locale,
        title=reading.meta.name,
        scheme=scheme,
        ghosts=found.ghosts,
    )
    return PanelNews(text, png, alt(found, locale))


def _state(text: str) -> EncounterState:
    state = from_json(json.loads(text))
    assert isinstance(state, EncounterState)
    return state


def _assemble(
    chain: Sequence[HistoryStep],
    since_seq: int,
    undone: Sequence[UndoneStep],
    viewer: str,
    deadline: datetime | None,
) -> CatchUp:
    start = max((i for i, s in enumerate(chain) if s.snapshot_seq < since_seq), default=0)
    since = _state(chain[start].state_json)
    steps: list[Step] = []
    before = since
    for row in chain[start + 1 :]:
        after = _state(row.state_json)
        steps.append(Step(before, after, tuple(rule_events(row.events))))
        before = after
    # an undone step counts when the reader could read something of it (the director's hand on what they saw)
    taken_back = sum(
        1
        for u in undone
        if seen_events(_state(u.before_json), _state(u.step.state_json), rule_events(u.step.events), viewer)
    )
    return build(since, steps, viewer, acted=since_seq > 0, undone=taken_back, deadline=deadline)


# --- words ---------------------------------------------------------------------------------------------------


def _name(state: EncounterState, uid: str, locale: str) -> str:
    unit = state.units.get(uid)
    return uid if unit is None else unit_name(unit, locale, markdown=True)


_RULE_ID = re.compile(r"^\[[^\]]*\]\s*")


def _unruled(line: str) -> str:
    """An account line without its leading rule id: the catch-up names the director in its own words."""
    return _RULE_ID.sub("", line, count=1)


def items(catchup: CatchUp, locale: str) -> list[str]:
    """Every line of news, the ones about the reader's own units first: what the director did (to their units
    first), the damage they took, then what they dealt, what moved, came into sight or went out of it."""
    c, now, viewer = catchup, catchup.state, catchup.viewer

    def name(uid: str) -> str:
        return _name(now if uid in now.units else c.since, uid, locale)

    def side_of(uid: str) -> str:
        unit = now.units.get(uid) or c.since.units.get(uid)
        return "" if unit is None else unit.side

    # the director's hand on the reader's own units first
    overrides = sorted(
        (e for e in c.director if isinstance(e, DirectorOverride)), key=lambda e: side_of(e.unit) != viewer
    )
    out = [
        t(
            "catchup.director",
            locale,
            line=_unruled(describe(e, now if e.unit in now.units else c.since, locale)),
        )
        for e in overrides
    ]
    taken = [h for h in c.hits if side_of(h.target) == viewer]
    out += [
        t("catchup.hit_dark", locale, target=name(h.target), damage=h.damage)
        if not h.shooter
        else t("catchup.taken", locale, target=name(h.target), shooter=name(h.shooter), damage=h.damage)
        for h in taken
    ]
    out += [t("catchup.destroyed", locale, unit=name(u)) for u in c.destroyed]
    out += [
        t("catchup.hit_dark", locale, target=name(h.target), damage=h.damage)
        if not h.shooter
        else t("catchup.hit", locale, shooter=name(h.shooter), target=name(h.target), damage=h.damage)
        for h in c.hits
        if h not in taken
    ]
    out += [t("catchup.damaged", locale, unit=name(u)) for u in c.damaged]
    out += [t("catchup.moved", locale, unit=name(u), frm=frm.label, to=to.label) for u, frm, to in c.moved]
    out += [t("catchup.seen", locale, unit=name(u), hex=at.label) for u, at in c.seen]
    out += [t("catchup.lost", locale, unit=name(u), hex=at.label) for u, at in c.lost]
    if c.undone:
        out.append(t("catchup.undone", locale, count=c.undone))
    return out


def lines(catchup: CatchUp, locale: str, *, limit: int = MAX_ITEMS) -> list[str]:
    """The catch-up as a reader gets it: since when, at most ``limit`` items (the rest counted), the deadline."""
    since = catchup.since
    when = phase_title(since, since.round, since.phase, locale)
    head = (
        t("catchup.since_told", locale, when=when)
        if catchup.told
        else t("catchup.since", locale, when=when)
        if catchup.acted
        else t("catchup.since_start", locale)
    )
    news = items(catchup, locale)
    body = [f"• {line}" for line in news[:limit]]
    if len(news) > limit:
        body.append(t("catchup.more", locale, count=len(news) - limit))
    if not news:
        body = [t("catchup.nothing", locale)]
    out = [head, *body]
    if catchup.deadline is not None:
        # a Discord timestamp: every reader sees it in their own time zone
        out.append(t("catchup.deadline", locale, when=f"<t:{int(catchup.deadline.timestamp())}:R>"))
    return out


def title(catchup: CatchUp, locale: str) -> str:
    """The catch-up's heading: whose view it is (a player of several sides gets one per side)."""
    if catchup.viewer == DIRECTOR:
        return t("catchup.title_director", locale)
    side = catchup.state.side(catchup.viewer).name_in(locale)
    return t("catchup.title", locale, side=shown_name(side))


def alt(catchup: CatchUp, locale: str) -> str:
    """The picture's alt text: that it ghosts where units were, then the board's own description with the
    catch-up's moves and hits (the same view, FOG-1)."""
    now = catchup.state
    moves = tuple(
        UnitMoved(
            rule="",
            unit=uid,
            frm=frm,
            to=to,
            facing_from=now.units[uid].facing,
            facing_to=now.units[uid].facing,
        )
        for uid, frm, to in catchup.moved
    )
    board = board_alt(now, (*moves, *catchup.marks), viewer=catchup.viewer, locale=locale)
    return clip(f"{t('catchup.alt', locale)} {board}")
