"""The differential leak harness (FOG-1, NGT-9): everything one person can read of an encounter, collected
through the real client against the local Discord, so two worlds that differ only in something that person must
not learn can be compared byte for byte (tests/night/test_leak_differential.py, tests/mech/)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from tests.e2e_helpers import Table
from tests.fakediscord import Message, Person

SNOWFLAKE = re.compile(r"\d{15,}")


def blank(value: Any) -> str:
    return SNOWFLAKE.sub("#", json.dumps(value, ensure_ascii=False, sort_keys=True))


def readable(message: Message) -> dict[str, Any]:
    """All of a message its reader gets: text, embeds, components (custom ids included) and files, byte for
    byte (a file by its digest)."""
    return {
        "content": message.content,
        "embeds": message.embeds,
        "components": message.components,
        "files": [
            (a.filename, a.description, hashlib.sha256(a.data).hexdigest()) for a in message.attachments
        ],
        "deleted": message.deleted,
    }


async def ask(person: Person, t: Table, command: str, options: dict[str, Any] | None = None) -> Any:
    handle = await person.run_command(t.channel, command, options or {})
    first = await handle.final_response(timeout=60)
    return readable(first)


async def surfaces(
    t: Table, person: Person, hidden: tuple[str, ...], typed: tuple[str, ...] = ("",)
) -> dict[str, str]:
    """Everything ``person`` can read, each surface by name (blanked of Discord's ids): ``hidden`` are units
    they must learn nothing of (asked about by name), ``typed`` what they type into unit autocompletes."""
    await t.bot.settle()
    out: dict[str, Any] = {
        "DMs": [readable(m) for m in person.dms()],
        "channel": [readable(m) for m in t.channel.messages() if m.visible_to in (None, person.id)],
    }
    out["/encounter status"] = await ask(person, t, "encounter status")
    out["/encounter board mine"] = await ask(person, t, "encounter board", {"view": "mine"})
    out["/encounter board public"] = await ask(person, t, "encounter board", {"view": "public"})
    out["/encounter log"] = await ask(person, t, "encounter log")
    out["/encounter catchup"] = await ask(person, t, "encounter catchup")
    out["/encounter replay mine"] = await ask(person, t, "encounter replay", {"view": "mine"})
    out["/encounter replay public"] = await ask(person, t, "encounter replay", {"view": "public"})
    out["/orders"] = await ask(person, t, "orders")
    for unit in (*hidden, "nobody"):
        out[f"/unit info {unit}"] = await ask(person, t, "unit info", {"unit": unit})
        out[f"/unit arcs {unit}"] = await ask(person, t, "unit arcs", {"unit": unit})
    for text in typed:
        out[f"autocomplete /unit info {text!r}"] = await person.autocomplete(
            t.channel, "unit info", "unit", text
        )
    out["refusal /director remove-unit"] = await ask(person, t, "director remove-unit", {"unit": hidden[0]})
    await t.bot.settle()
    out["channel after asking"] = [
        readable(m) for m in t.channel.messages() if m.visible_to in (None, person.id)
    ]
    return {name: blank(value) for name, value in out.items()}


def director_act(command: str, options: dict[str, Any]) -> Callable[[Table], Any]:
    async def act(t: Table) -> None:
        done = await (await t.director.run_command(t.channel, command, options)).final_response(timeout=60)
        # a unit the channel cannot see: the director alone hears of it (FOG-1)
        assert done.visible_to == t.director.id and "refused" not in done.content.lower(), done.content

    return act
