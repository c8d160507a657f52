"""Nobody waits on nobody, in the application layer (no Discord): seating a side, the director playing what
nobody plays, units left to their stand-in order, and status lines that always name who must act."""

from __future__ import annotations

import pytest

from bot.permissions import Actor
from bot.results import Missing, Refused
from bot.service import EncounterService
from bot.service.seating import SEAT_DIRECTOR, SEAT_PLAYER, SEAT_STAND_IN
from bot.status_names import waiting_text
from rules.registry import ruleset_for

GUILD, CHANNEL, DIRECTOR, ANA, BEA = 1, 2, 10, 11, 12


async def _night(service: EncounterService) -> int:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="skirmish", scenario="skirmish-night")
    return created.encounter_id


async def test_join_side_takes_every_unplayed_unit_of_the_side_hidden_ones_included(
    service: EncounterService,
) -> None:
    """FOG-1: a side sees its own units; the public line may name only what the channel sees."""
    enc = await _night(service)
    seated = await service.join(enc, BEA, side="tyr")
    assert sorted(u for u, _, _ in seated.units) == ["kara", "tyrano"]
    assert "Kara" in seated.hidden_names and "Kara" not in seated.public_names
    with pytest.raises(Refused) as again:
        await service.join(enc, BEA, side="tyr")
    assert again.value.code == "unit.already_yours"


async def test_a_hidden_unit_is_joined_only_by_who_plays_its_side(service: EncounterService) -> None:
    enc = await _night(service)
    with pytest.raises(Refused) as unknown:
        await service.join(enc, ANA, unit="kara")
    assert unknown.value.code == "unit.unknown", "the same words as for a unit that does not exist"
    assert "kara" not in [u.id for u in await service.free_units(enc, ANA)]
    await service.join(enc, BEA, unit="tyrano")
    assert "kara" in [u.id for u in await service.free_units(enc, BEA)]
    seated = await service.join(enc, BEA, unit="kara")
    assert seated.hidden_names == ("Kara",)


async def test_sk_1_1_a_unit_nobody_plays_is_the_directors_and_a_stand_in_unit_goes_on_by_itself(
    service: EncounterService,
) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="skirmish", scenario="skirmish-corridor")
    enc = created.encounter_id
    await service.join(enc, ANA, side="rfp")
    await service.start(enc, Actor(DIRECTOR))
    reading = await service.read(enc)
    acting = ruleset_for(reading.state).awaiting(reading.state)
    status = await service.status(enc)
    assert [(m.user_id, m.unit, m.director) for m in status.missing] == [(DIRECTOR, u, True) for u in acting]
    assert await service.panel_units(enc, Actor(DIRECTOR)) == list(acting)
    for unit in acting:
        await service.seat(enc, Actor(DIRECTOR), unit, SEAT_STAND_IN)
    await service.advance(enc)
    after = await service.read(enc)
    assert after.phase_no > reading.phase_no
    assert not set(acting) & set(ruleset_for(after.state).awaiting(after.state))
    with pytest.raises(Refused) as not_director:
        await service.seat(enc, Actor(ANA), acting[0], SEAT_DIRECTOR)
    assert not_director.value.code == "director.only"
    await service.seat(enc, Actor(DIRECTOR), acting[0], f"{SEAT_PLAYER}{BEA}")
    assert await service.seat_choice(enc, acting[0]) == f"{SEAT_PLAYER}{BEA}"


def test_the_status_names_who_acts_and_never_a_hidden_unit() -> None:
    shown = (Missing(ANA, "veddio", "Veddio"), Missing(DIRECTOR, "zug", "Zug", director=True))
    assert waiting_text(shown, "es", acting=True) == f"Ahora actúa: Veddio (<@{ANA}>), Zug (el director)"
    hidden = (Missing(BEA, "kara", ""),)
    assert waiting_text(hidden, "es", acting=True) == f"Esperando a <@{BEA}>."
    assert waiting_text((Missing(DIRECTOR, "kara", "", director=True),), "en", acting=False) == (
        "Waiting for the director."
    )
    # a hidden unit the director plays is named (as the director) only once nobody else is awaited (FOG-1)
    with_director = (Missing(BEA, "tyrano", ""), Missing(DIRECTOR, "lurker", "", director=True))
    assert waiting_text(with_director, "en", acting=True) == f"Waiting for <@{BEA}>."
    both = (Missing(BEA, "tyrano", "Tyrano"), Missing(BEA, "kara", ""))
    assert waiting_text(both, "en", acting=False) == f"Waiting for orders from: Tyrano (<@{BEA}>)"
