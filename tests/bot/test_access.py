"""Nobody acts or is reached where they don't belong (DESIGN §4 Permissions): an import seats nobody but the
person importing it, and one member cannot take every channel of a server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bot.permissions import Actor
from bot.results import Refused
from bot.service import EncounterService
from bot.storage.export import seal

GUILD, CHANNEL = 10, 20
DIRECTOR, ANA, BEA, MEMBER, STRANGER = 1, 2, 3, 7, 999
DIRECTOR_ROLE = 555


async def running_duel(service: EncounterService) -> int:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="exo", scenario="exo-duel")
    await service.join(created.encounter_id, ANA)
    await service.join(created.encounter_id, BEA)
    await service.start(created.encounter_id, Actor(DIRECTOR))
    return created.encounter_id


def edited(data: dict[str, Any]) -> dict[str, Any]:
    """What a member can make of an export with a text editor: other people seated, someone else its creator,
    the game running, settings of their choosing; sealed again (the seal is a checksum anyone computes)."""
    when = data["participants"][0]["joined_at"]
    data["participants"].append(
        {"user_id": STRANGER, "role": "player", "side": "", "unit": "", "joined_at": when}
    )
    data["participants"].append(
        {"user_id": STRANGER + 1, "role": "codirector", "side": "", "unit": "", "joined_at": when}
    )
    data["encounter"]["created_by"] = ANA
    data["encounter"]["status"] = "running"
    data["encounter"]["settings"] = {"reveal_at_end": True, "review_rolls": True, "muted_reminders": [ANA]}
    body = {k: v for k, v in data.items() if k not in ("format", "version", "sha256")}
    return seal(body)


async def test_an_import_seats_nobody_but_the_importer_and_keeps_nothing_the_file_says_of_people(
    service: EncounterService,
) -> None:
    enc = await running_duel(service)
    data = edited(await service.export(enc, Actor(DIRECTOR)))
    await service.end(enc, Actor(DIRECTOR))
    imported = await service.import_file(
        json.dumps(data).encode(), GUILD, CHANNEL + 1, MEMBER, actor=Actor(MEMBER)
    )
    meta = await service.storage.get_encounter(imported.encounter_id)
    parts = await service.storage.participants(imported.encounter_id)
    assert [(p.user_id, p.role) for p in parts] == [(MEMBER, "director")]
    assert meta.created_by == MEMBER and meta.status == "paused"
    assert meta.settings == {"review_rolls": False}
    # the file's players are listed for the new director to invite, never seated
    assert {user for user, _ in imported.seats} == {ANA, BEA, STRANGER}
    assert dict(imported.seats)[ANA] == "halcon"
    assert await service.my_units(imported.encounter_id, ANA) == []
    with pytest.raises(Refused):  # Ana plays only once she joins here
        await service.my_order(imported.encounter_id, ANA, "halcon")
    joined = await service.join(imported.encounter_id, ANA, unit="halcon")
    assert [unit for unit, _, _ in joined.units] == ["halcon"]


async def test_an_import_of_an_encounter_not_started_stays_open_and_an_ended_one_stays_ended(
    service: EncounterService,
) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="exo", scenario="exo-duel")
    data = await service.export(created.encounter_id, Actor(DIRECTOR))
    await service.end(created.encounter_id, Actor(DIRECTOR))
    again = await service.import_(data, GUILD, CHANNEL + 1, DIRECTOR)
    assert (await service.storage.get_encounter(again)).status == "open"
    data["encounter"]["status"] = "ended"
    body = {k: v for k, v in data.items() if k not in ("format", "version", "sha256")}
    ended = await service.import_(seal(body), GUILD, CHANNEL + 2, DIRECTOR)
    assert (await service.storage.get_encounter(ended)).status == "ended"


async def test_a_server_may_keep_imports_to_manage_server(service: EncounterService) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="exo", scenario="exo-duel")
    data = await service.export(created.encounter_id, Actor(DIRECTOR))
    await service.change_guild_settings(GUILD, import_managers_only=True, director_role_id=DIRECTOR_ROLE)
    with pytest.raises(Refused) as refused:
        await service.import_(
            data, GUILD, CHANNEL + 1, MEMBER, actor=Actor(MEMBER, frozenset({DIRECTOR_ROLE}))
        )
    assert refused.value.code == "import.managers_only"
    await service.import_(data, GUILD, CHANNEL + 1, MEMBER, actor=Actor(MEMBER, manage_guild=True))


async def test_a_burst_of_new_encounters_opens_three_per_member_and_manage_server_is_exempt(
    service: EncounterService,
) -> None:
    """20 channels taken in under two seconds by one member: now the member gets 3 and every other attempt is
    refused, counted one at a time however they arrive."""
    member = Actor(MEMBER)
    attempts = await asyncio.gather(
        *(
            service.create(GUILD, 100 + i, MEMBER, ruleset="exo", scenario="exo-duel", actor=member)
            for i in range(20)
        ),
        return_exceptions=True,
    )
    opened = [a for a in attempts if not isinstance(a, BaseException)]
    refused = [a for a in attempts if isinstance(a, Refused)]
    assert len(opened) == 3 and len(refused) == 17
    assert {r.code for r in refused} == {"encounter.too_many_open"}
    assert refused[0].params == {"count": 3, "limit": 3}
    with pytest.raises(Refused):  # the quick check before answering says so too
        await service.check_create(GUILD, 200, ruleset="exo", scenario="exo-duel", actor=member)
    # someone else is not held by it, nor is a member with Manage Server
    await service.create(GUILD, 201, ANA, ruleset="exo", scenario="exo-duel", actor=Actor(ANA))
    boss = Actor(BEA, manage_guild=True)
    for i in range(5):
        await service.create(GUILD, 300 + i, BEA, ruleset="exo", scenario="exo-duel", actor=boss)
    # ending one frees a place; a server setting of 0 lifts the limit
    await service.end(opened[0].encounter_id, member)
    await service.create(GUILD, 400, MEMBER, ruleset="exo", scenario="exo-duel", actor=member)
    await service.change_guild_settings(GUILD, max_open_encounters=0)
    await service.create(GUILD, 401, MEMBER, ruleset="exo", scenario="exo-duel", actor=member)


async def test_where_a_director_role_is_set_only_its_members_open_encounters(
    service: EncounterService,
) -> None:
    await service.change_guild_settings(GUILD, director_role_id=DIRECTOR_ROLE, max_open_encounters=1)
    with pytest.raises(Refused) as refused:
        await service.check_create(GUILD, CHANNEL, ruleset="exo", scenario="exo-duel", actor=Actor(MEMBER))
    assert refused.value.code == "encounter.new_director_only"
    with pytest.raises(Refused):
        await service.create(GUILD, CHANNEL, MEMBER, ruleset="exo", scenario="exo-duel", actor=Actor(MEMBER))
    director = Actor(MEMBER, role_ids=frozenset({DIRECTOR_ROLE}))
    for i in range(3):  # the director role is not held to a member's limit either
        await service.create(GUILD, CHANNEL + i, MEMBER, ruleset="exo", scenario="exo-duel", actor=director)
