"""Who watches an encounter without playing it, and what each spectator may read (NGT-9, FOG-1).

A spectator holds no participant row: they own no unit, owe no order, get no panel or reminder and never appear
in "waiting for", because every one of those is worked out from the participants alone. What a spectator asked
for lives in the encounter's settings, one key per spectator and one per answer a side's player gave, so two
answers given at once in two bot processes never overwrite each other (``Storage.update_settings`` merges keys
under the encounter's lock).

Views:

- :data:`OPEN` — the encounter hides nothing from the channel: the spectator reads the channel, nothing more.
- a side id — what that side's players get by DM (their board and account), once every player of that side at
  the time of asking approved; a single refusal refuses. A side with no player is answered by the director.
- :data:`DELAYED` — the director's full view, but only of the round that ended the director's delay ago
  (:data:`DELAY`, rounds; 0, the default, forbids it).

Anyone who holds a seat (a unit, or a director's chair) is no spectator, whatever the settings say: they would
otherwise read another side's view as well as their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from bot.storage import Participant, Storage
from bot.storage.export import SPECTATOR_PREFIX
from rules.registry import ruleset_for
from rules.state import EncounterState

#: the settings key of the director's delay for spectators of the full view, in rounds (0 or absent: forbidden)
DELAY: Final = "spectator_delay"
#: the most rounds a director may hold the full view back
MAX_DELAY: Final = 20
#: a spectator of a public encounter: the channel shows everything there is
OPEN: Final = "open"
#: a spectator of the director's full view, held back :data:`DELAY` rounds
DELAYED: Final = "delayed"
#: message refs: the delayed view of one round sent to one spectator, keyed ``"{user}:{round}"``
DELAYED_REF: Final = "spectator_round"

_PREFIX: Final = SPECTATOR_PREFIX
_ANSWER: Final = "_by_"

Standing = Literal["pending", "approved", "refused"]


@dataclass(frozen=True, slots=True)
class Watch:
    """One spectator's request: the view they asked for and who must approve it (none: no approval needed)."""

    user_id: int
    view: str
    approvers: tuple[int, ...] = ()

    @property
    def side(self) -> str | None:
        """The side whose view this is (None: the channel's, or the director's delayed view)."""
        return None if self.view in (OPEN, DELAYED) else self.view


def watch_key(user_id: int) -> str:
    return f"{_PREFIX}{user_id}"


def answer_key(user_id: int, approver: int) -> str:
    return f"{_PREFIX}{user_id}{_ANSWER}{approver}"


def watch_setting(view: str, approvers: Iterable[int] = ()) -> dict[str, Any]:
    """What :func:`watch_key` holds for a request."""
    return {"view": view, "approvers": sorted(set(approvers))}


def delay_of(settings: Mapping[str, Any]) -> int:
    """The director's delay for the full view, in rounds (0: forbidden)."""
    value = settings.get(DELAY, 0)
    return value if isinstance(value, int) and 0 <= value <= MAX_DELAY else 0


def watches(settings: Mapping[str, Any]) -> list[Watch]:
    """Every request in the settings, oldest spectator id first (a key that does not read as one is ignored)."""
    found: list[Watch] = []
    for key, value in settings.items():
        rest = key[len(_PREFIX) :] if key.startswith(_PREFIX) else ""
        if not rest.isdigit() or not isinstance(value, dict):
            continue
        fields: dict[str, Any] = dict(value)  # pyright: ignore[reportUnknownArgumentType]
        view, approvers = fields.get("view"), fields.get("approvers", [])
        if not isinstance(view, str) or not isinstance(approvers, list):
            continue
        ids = tuple(int(a) for a in approvers if isinstance(a, int))  # pyright: ignore[reportUnknownVariableType]
        found.append(Watch(int(rest), view, ids))
    return sorted(found, key=lambda w: w.user_id)


def watch_of(settings: Mapping[str, Any], user_id: int) -> Watch | None:
    return next((w for w in watches(settings) if w.user_id == user_id), None)


def answers(settings: Mapping[str, Any], watch: Watch) -> dict[int, bool]:
    """The approvers who answered ``watch``, each with their answer."""
    out: dict[int, bool] = {}
    for approver in watch.approvers:
        value = settings.get(answer_key(watch.user_id, approver))
        if isinstance(value, bool):
            out[approver] = value
    return out


def standing(settings: Mapping[str, Any], watch: Watch) -> Standing:
    """Approved once every approver said yes (a request that needs none is approved), refused at the first no."""
    given = answers(settings, watch)
    if any(not yes for yes in given.values()):
        return "refused"
    if all(given.get(a) for a in watch.approvers):
        return "approved"
    return "pending"


def seated(people: Iterable[Participant], created_by: int) -> set[int]:
    """Everyone who holds a seat: no spectator, whatever their request says."""
    return {created_by} | {p.user_id for p in people}


def side_spectators(
    settings: Mapping[str, Any], people: Iterable[Participant], created_by: int, side: str
) -> set[int]:
    """The approved spectators of ``side``'s view: they read what its players read, by DM."""
    taken = seated(people, created_by)
    return {
        w.user_id
        for w in watches(settings)
        if w.side == side and w.user_id not in taken and standing(settings, w) == "approved"
    }


def delayed_spectators(
    settings: Mapping[str, Any], people: Iterable[Participant], created_by: int
) -> list[int]:
    """The spectators of the delayed full view, while the director allows it."""
    if delay_of(settings) < 1:
        return []
    taken = seated(people, created_by)
    return [w.user_id for w in watches(settings) if w.view == DELAYED and w.user_id not in taken]


def hidden_sides(state: EncounterState) -> tuple[str, ...]:
    """The sides that read the encounter privately (NGT-9: the ruleset's or a layer's ``private_views``); none:
    the channel shows everything there is, so a spectator needs nothing more. An order mode that keeps orders
    secret until they resolve hides nothing a spectator could be sent: the channel reveals them together."""
    try:
        return ruleset_for(state).private_views(state)
    except KeyError:
        return ()


def delayed_round(ended: int, delay: int) -> int | None:
    """The round a delayed spectator is shown when round ``ended`` ends (None: none yet)."""
    shown = ended - delay
    return shown if delay >= 1 and shown >= 1 else None


def watch_cleanup(settings: Mapping[str, Any], user_id: int) -> dict[str, None]:
    """The settings changes that end ``user_id``'s watching: their request and every answer to it."""
    own = watch_key(user_id)
    return {k: None for k in settings if k == own or k.startswith(own + _ANSWER)}


async def end_watch(storage: Storage, encounter_id: int, user_id: int) -> None:
    """``user_id`` took a seat (a unit, a co-director's chair): whatever they watched ends, so leaving the seat
    later never brings back a view they asked for before they read their own."""
    meta = await storage.get_encounter(encounter_id)
    if changes := watch_cleanup(meta.settings, user_id):
        await storage.update_settings(encounter_id, **changes)
