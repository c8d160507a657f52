"""Hardening at the service level: crafted imports never brick a channel, a broken encounter can still be ended,
deep nesting and long names give clear refusals."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.permissions import Actor
from bot.results import Refused
from bot.service import EncounterService, parse_export
from bot.storage.export import seal
from data import SCENARIO_DIR
from data.i18n import phrase_text
from rules.errors import ScenarioError
from rules.scenario import load_scenario

GUILD, CHANNEL, OTHER_CHANNEL = 10, 20, 21
DIRECTOR = 1


async def exported_duel(service: EncounterService) -> dict[str, Any]:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="exo", scenario="exo-duel")
    data = await service.export(created.encounter_id, Actor(DIRECTOR))
    await service.end(created.encounter_id, Actor(DIRECTOR))
    return data


def resealed(data: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in data.items() if k not in ("format", "version", "sha256")}
    return seal(body)


async def test_an_export_resealed_over_an_undecodable_snapshot_is_refused_and_the_channel_stays_free(
    service: EncounterService,
) -> None:
    data = await exported_duel(service)
    data["snapshots"][0]["state"] = {"$t": "NoSuchThing", "x": 1}
    with pytest.raises(Refused) as err:
        await service.import_(resealed(data), GUILD, OTHER_CHANNEL, DIRECTOR)
    assert err.value.code == "import.invalid" and "cannot read" in str(err.value)
    # nothing was stored: the channel takes a new encounter at once
    await service.create(GUILD, OTHER_CHANNEL, DIRECTOR, ruleset="exo", scenario="exo-duel")


async def test_an_import_with_two_units_sharing_an_id_is_refused(service: EncounterService) -> None:
    data = await exported_duel(service)
    units = data["snapshots"][0]["state"]["units"]
    first, second = list(units)[:2]
    units[second] = {**units[second], "id": first}
    with pytest.raises(Refused, match="two units share an id"):
        await service.import_(resealed(data), GUILD, OTHER_CHANNEL, DIRECTOR)


async def test_an_import_with_a_bad_time_stamp_is_refused(service: EncounterService) -> None:
    data = await exported_duel(service)
    data["events"][0]["created_at"] = "yesterday-ish"
    with pytest.raises(Refused, match="is not a time"):
        await service.import_(resealed(data), GUILD, OTHER_CHANNEL, DIRECTOR)


async def test_where_the_server_names_a_director_role_only_directors_may_import(
    service: EncounterService,
) -> None:
    data = await exported_duel(service)
    await service.change_guild_settings(GUILD, director_role_id=555)
    with pytest.raises(Refused) as err:
        await service.import_(data, GUILD, OTHER_CHANNEL, 7, actor=Actor(7))
    assert err.value.code == "import.not_director"
    enc = await service.import_(data, GUILD, OTHER_CHANNEL, 7, actor=Actor(7, role_ids=frozenset({555})))
    assert await service.is_director(await service.storage.get_encounter(enc), Actor(7))


async def test_a_broken_encounter_can_still_be_ended_by_its_director(
    service: EncounterService, tmp_path: Path
) -> None:
    created = await service.create(GUILD, CHANNEL, DIRECTOR, ruleset="exo", scenario="exo-duel")
    with sqlite3.connect(tmp_path / "bot.sqlite3") as raw:
        raw.execute("UPDATE snapshots SET state = ?", ('{"$t": "Broken"}',))
    service._reads.clear()  # pyright: ignore[reportPrivateUsage]  # as after a restart
    with pytest.raises(TypeError):
        await service.read(created.encounter_id)
    await service.end(created.encounter_id, Actor(DIRECTOR))
    assert (await service.storage.get_encounter(created.encounter_id)).status == "ended"


def test_deeply_nested_json_is_a_clear_refusal_not_a_recursion_error() -> None:
    blob = ("[" * 100_000 + "]" * 100_000).encode()
    with pytest.raises(Refused, match="nested too deeply"):
        parse_export(blob)


def test_deeply_nested_toml_is_a_clear_scenario_error() -> None:
    text = 'ruleset = "exo"\nname = "x"\nx = ' + "[" * 100_000 + "]" * 100_000 + "\n"
    with pytest.raises(ScenarioError) as err:
        load_scenario(text)
    assert [phrase_text(p) for p in err.value.problems] == ["the file is nested too deeply to read"]


@pytest.mark.parametrize(
    ("where", "old", "new"),
    [
        (
            "name",
            'name = { es = "Duelo en el cinturón de Kessel", en = "Duel in the Kessel belt" }',
            'name = "' + "N" * 100_000 + '"',
        ),
        ("name.en", '"Duel in the Kessel belt"', '"' + "N" * 100_000 + '"'),
        ("units[0].name", 'name = "Halcón"', 'name = "' + "H" * 3_000 + '"'),
        ("units[0].crew[0].name", 'name = "Rhea"', 'name = "' + "R" * 3_000 + '"'),
        (
            "units[0].label",
            'weapons = ["APt", "Lx2"]',
            'weapons = ["APt", "Lx2"]\nlabel = "' + "L" * 300 + '"',
        ),
    ],
)
def test_over_long_names_are_refused_by_the_scenario_validator(where: str, old: str, new: str) -> None:
    text = (SCENARIO_DIR / "exo-duel.toml").read_text(encoding="utf-8").replace(old, new, 1)
    with pytest.raises(ScenarioError) as err:
        load_scenario(text)
    assert any(p.path == where and "at most" in phrase_text(p) for p in err.value.problems), (
        err.value.problems
    )


def test_a_large_export_is_gzip_compressed_and_imports_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """bench/heavy.py: an 800-ship export was 13 MB of JSON, over Discord's 10 MB upload limit,
    and failed; a large export is sent compressed, and the import reads it back. A gzip bomb is refused."""
    import gzip

    from bot.results import Refused
    from bot.service import records as service_records
    from bot.service.records import export_blob

    data = {"encounter": {"name": "Big fleet"}, "snapshots": [{"state": "x" * 5000}] * 20}
    small, name = export_blob(data, 7)
    assert name == "encounter-7.json" and parse_export(small) == data
    monkeypatch.setattr(service_records, "EXPORT_INLINE_BYTES", 10_000)
    packed, name = export_blob(data, 7)
    assert name == "encounter-7.json.gz" and len(packed) < len(small) // 10
    assert parse_export(packed) == data
    monkeypatch.setattr(service_records, "MAX_EXPORT_BYTES", 1_000_000)
    bomb = gzip.compress(b"{" + b" " * 5_000_000 + b"}")
    with pytest.raises(Refused) as refused:
        parse_export(bomb)
    assert refused.value.code == "import.invalid"


def _overlong(state: dict[str, Any], which: str) -> None:
    """One name or id of an exported state made what a scenario file may not hold."""
    units: dict[str, Any] = state["units"]
    if which == "unit-name":
        units["halcon"]["name"] = "H" * 5000
    elif which == "side-name":
        state["sides"][0]["name"] = "S" * 65
    elif which == "encounter-name":
        state["name"] = "E" * 101
    else:
        units["héroe"] = {**units["halcon"], "id": "héroe"}


@pytest.mark.parametrize(
    ("which", "reason"),
    [
        ("unit-name", "name is over 64"),
        ("side-name", "name is over 64"),
        ("encounter-name", "name is over 100"),
        ("unit-id", "héroe"),
    ],
)
async def test_an_imports_names_and_ids_meet_a_scenario_files_limits(
    service: EncounterService, which: str, reason: str
) -> None:
    """A name too long for the messages that repeat it, or an id a panel's custom id cannot carry, is refused as
    a scenario file's would be (rules/scenario.py MAX_NAME, MAX_UNIT_NAME, SAFE_ID)."""
    data = await exported_duel(service)
    _overlong(data["snapshots"][-1]["state"], which)
    with pytest.raises(Refused, match=reason) as err:
        await service.import_(resealed(data), GUILD, OTHER_CHANNEL, DIRECTOR)
    assert err.value.code == "import.invalid"
    await service.create(GUILD, OTHER_CHANNEL, DIRECTOR, ruleset="exo", scenario="exo-duel")  # nothing stored
