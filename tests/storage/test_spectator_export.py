"""An encounter carried to another channel by export and import starts with no spectator (bot/spectators.py): the
approvals were given at one table for its own channel. Both backends (``HEXDIRECTOR_TEST_POSTGRES_URL``)."""

from __future__ import annotations

import json

from bot.spectators import DELAY, answer_key, watch_key, watch_setting, watches
from bot.storage import Storage
from bot.storage.export import seal
from tests.storage_fixtures import ALICE, CHANNEL, GUILD, new_encounter

SPECTATOR = 77


async def test_export_drops_spectators_and_their_answers_but_keeps_the_directors_delay(
    storage: Storage,
) -> None:
    source = await new_encounter(storage)
    await storage.update_settings(
        source,
        **{watch_key(SPECTATOR): watch_setting("red", [ALICE]), answer_key(SPECTATOR, ALICE): True, DELAY: 2},
    )
    assert watches((await storage.get_encounter(source)).settings)
    exported = json.loads(json.dumps(await storage.export_encounter(source)))
    settings = exported["encounter"]["settings"]
    assert not any(key.startswith("watch_") for key in settings), settings
    assert settings[DELAY] == 2 and settings["mode"] == "x"
    copy_id = await storage.import_encounter(exported, GUILD, CHANNEL + 1)
    assert watches((await storage.get_encounter(copy_id)).settings) == []


async def test_an_import_file_that_carries_spectators_imports_without_them(storage: Storage) -> None:
    source = await new_encounter(storage)
    exported = json.loads(json.dumps(await storage.export_encounter(source)))
    body = {k: v for k, v in exported.items() if k not in ("format", "version", "sha256")}
    body["encounter"]["settings"][watch_key(SPECTATOR)] = watch_setting("delayed")
    copy_id = await storage.import_encounter(seal(body), GUILD, CHANNEL + 2)
    settings = (await storage.get_encounter(copy_id)).settings
    assert watches(settings) == [] and settings["mode"] == "x"
