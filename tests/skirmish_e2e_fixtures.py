"""Helpers shared by several test modules (a test module never imports another)."""

from __future__ import annotations

from tests.e2e_helpers import Table, draft_in, submitted
from tests.fakediscord import Message, Person

RFP = ("veddio", "lana", "kira", "dax")


TYR = ("tyrano", "brak", "kara", "zug")


async def open_corridor(t: Table) -> int:
    created = await (
        await t.director.run_command(
            t.channel, "encounter new", {"ruleset": "skirmish", "scenario": "skirmish-corridor"}
        )
    ).final_response()
    assert "Veddio" in created.content
    for person, units in ((t.ana, RFP), (t.bea, TYR)):
        for unit in units:
            joined = await (
                await person.run_command(t.channel, "encounter join", {"unit": unit})
            ).final_response()
            assert joined.content
    await (await t.director.run_command(t.channel, "encounter start")).final_response()
    meta = await t.bot.service.storage.active_encounter_in_channel(t.channel.guild.id, t.channel.id)
    assert meta is not None
    return meta.id


def select_of(panel: Message, unit: str, group: str) -> tuple[str, list[str]]:
    for cid, comp in panel.custom_ids().items():
        if cid.endswith(f":unit:{unit}:{group}"):
            return cid, [o["value"] for o in comp.get("options", [])]
    return "", []


async def choose(t: Table, person: Person, panel: Message, unit: str, group: str, value: str) -> None:
    cid, values = select_of(panel, unit, group)
    assert value in values, f"{value!r} not offered in {group}: {values}"
    handle = await person.select(panel, cid, [value])
    await handle.acknowledged()
    expected = value

    def shown() -> bool:
        found = draft_in(panel)
        return found is not None and expected in (found[1].text("action"), found[1].text("choice"))

    await t.fd.wait_for(shown, what="the panel to show the chosen action")


async def press(t: Table, person: Person, panel: Message, unit: str, action: str) -> Message:
    """Press a button of ``unit``'s that answers (a Submit, an end of activation): its answer."""
    cid = next(c for c in panel.custom_ids() if c.endswith(f":unit:{unit}:{action}"))
    handle = await person.click(panel, cid)
    return await submitted(t.fd, panel, unit, handle)


async def a_destination(t: Table, person: Person, panel: Message, unit: str, moves: list[str]) -> str:
    """A hex the Move menu offers: with more hexes in reach than a menu holds, a direction is picked first and
    its hexes listed (the panel's draft carries the direction)."""
    if not moves[0].startswith("way "):
        return moves[0]
    cid, _ = select_of(panel, unit, "move")
    await (await person.select(panel, cid, [moves[0]])).acknowledged()
    way = moves[0].removeprefix("way ")

    def listed() -> bool:
        found = draft_in(panel)
        return found is not None and found[1].text("way") == way

    await t.fd.wait_for(listed, what="the direction's hexes")
    _, moves = select_of(panel, unit, "move")
    return next(m for m in moves if not m.startswith("way "))
