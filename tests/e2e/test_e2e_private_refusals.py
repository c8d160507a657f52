"""Every refusal is private to the one who caused it, whatever the command.

Every slash command the bot registers (found from the registry, so a new command is covered without editing this
test) is run by a plain member with values that the bot must refuse: in a channel with no encounter, then in a
channel whose encounter is running and that member does not play. Each refusal must be an ephemeral answer, and
the channel must get nothing from it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e_helpers import Table, open_duel
from tests.fakediscord import Person

pytestmark = pytest.mark.slow

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11

#: commands that answer a plain member in the open when they succeed; given the values below they must refuse
JUNK = {STRING: "zz9", INTEGER: 987654, NUMBER: 987654.0, BOOLEAN: True}
#: options whose junk would be accepted as they are (a dice expression, a view choice): a value that is refused
REFUSED_VALUES: dict[str, Any] = {"expression": "zz9", "view": "director"}
#: commands that never refuse a member by design: what they show is the member's own (help, their settings)
NEVER_REFUSE = {"help", "settings language", "settings show", "settings reminders"}


def leaf_commands(commands: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every invocable path ("encounter join") with its options' schema."""
    found: list[tuple[str, list[dict[str, Any]]]] = []

    def walk(prefix: str, options: list[dict[str, Any]]) -> None:
        subs = [o for o in options if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        if not subs:
            found.append((prefix, options))
        for sub in subs:
            walk(f"{prefix} {sub['name']}", sub.get("options") or [])

    for command in commands:
        if command.get("type", 1) == 1:
            walk(command["name"], command.get("options") or [])
    return found


def refused_options(t: Table, schema: list[dict[str, Any]], member: Person) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for option in schema:
        if not option.get("required") and option["name"] not in REFUSED_VALUES:
            continue
        kind, name = option["type"], option["name"]
        if name in REFUSED_VALUES:
            choices = [c["value"] for c in option.get("choices") or []]
            wanted = REFUSED_VALUES[name]
            values[name] = wanted if not choices or wanted in choices else choices[-1]
        elif option.get("choices"):
            values[name] = option["choices"][0]["value"]
        elif kind == USER:
            values[name] = member
        elif kind == CHANNEL:
            values[name] = t.channel
        elif kind == ATTACHMENT:
            values[name] = ("broken.toml", b"\xff\xfe not a scenario")
        elif kind in (INTEGER, NUMBER) and "max_value" in option:
            values[name] = option["max_value"]
        else:
            values[name] = JUNK.get(kind, "zz9")
    return values


async def refusals_are_private(t: Table, member: Person) -> list[str]:
    commands = leaf_commands(t.fd.commands.list(t.guild_id))
    assert len(commands) > 20, "every command is registered"
    public: list[str] = []
    for path, schema in commands:
        if path in NEVER_REFUSE or path.startswith("director "):  # directors' commands: test_e2e_bot
            continue
        await t.bot.settle()  # the table's own announcements are out before the member acts
        before = len([m for m in t.channel.messages() if m.visible_to is None])
        handle = await member.run_command(t.channel, path, refused_options(t, schema, member))
        reply = await handle.final_response(timeout=30)
        await t.bot.settle()
        after = [m for m in t.channel.messages() if m.visible_to is None]
        if not reply.ephemeral or len(after) != before:
            public.append(f"/{path}: {reply.content[:80]!r}")
    return public


async def test_every_command_refuses_in_private_where_there_is_no_encounter(table: Table) -> None:
    t = table
    stranger = t.fd.create_user("zoe")
    t.channel.guild.add_member(stranger.user)
    public = await refusals_are_private(t, stranger)
    assert public == [], "\n".join(public)


async def test_every_command_refuses_in_private_a_member_who_does_not_play(table: Table) -> None:
    t = table
    await open_duel(t)
    stranger = t.fd.create_user("zoe", locale="es-ES")
    t.channel.guild.add_member(stranger.user)
    public = await refusals_are_private(t, stranger)
    assert public == [], "\n".join(public)
