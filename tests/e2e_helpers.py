"""Shared pieces of the bot's end-to-end tests: start a real ``HexBot`` against tests/fakediscord and act as
players on their order panels (DM or ephemeral), the way a person would: clicks and selects only."""

from __future__ import annotations

import re
from typing import Any

from bot.client import EXTENSIONS, HexBotCore
from bot.config import Config
from bot.panels.draft import Draft, decode_draft
from tests.fakediscord import FakeDiscord, Message, Person


class BotUnderTest(HexBotCore):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py's hook sleeps 5 s before every re-IDENTIFY; nothing to rate-limit against the fake."""


async def start_bot(
    fd: FakeDiscord,
    database_url: str,
    guild_id: int,
    *,
    deadline_interval: float = 3600,
    extensions: tuple[str, ...] = EXTENSIONS,
) -> BotUnderTest:
    config = Config(token=fd.bot_token, database_url=database_url, dev_guild=guild_id, log_level="WARNING")
    bot = BotUnderTest(
        config, deadline_interval=deadline_interval, guild_ready_timeout=0.05, extensions=extensions
    )
    await fd.start_client(bot)
    return bot


def panel_ids(message: Message) -> dict[str, dict[str, Any]]:
    return {cid: c for cid, c in message.custom_ids().items() if cid.startswith("hexd:")}


def panels_for(messages: list[Message], unit: str) -> list[Message]:
    return [m for m in messages if any(f":unit:{unit}:" in cid for cid in m.custom_ids()) and not m.deleted]


async def panel_for_phase(fd: FakeDiscord, person: Person, unit: str, phase_no: int) -> Message:
    """The newest DM panel of ``unit`` drafted for phase ``phase_no`` (waits on the local Discord's state)."""

    def find() -> Message | None:
        for m in reversed(panels_for(person.dms(), unit)):
            found = draft_in(m)
            if found is not None and found[0] == phase_no:
                return m
        return None

    return await fd.wait_for(find, what=f"{person.name}'s {unit} panel for phase {phase_no}", timeout=60)


def draft_in(message: Message) -> tuple[int, Draft] | None:
    for row in message.components:
        for comp in row.get("components", []):
            found = decode_draft(str(comp.get("custom_id", "")))
            if found is not None:
                return found
    return None


def step_of(message: Message) -> str:
    ids = message.custom_ids()
    if any(cid.endswith(":decide") for cid in ids):
        return "decision"
    if any(cid.endswith(":crew") for cid in ids):
        return "crew"
    if any(cid.endswith(":repairs") for cid in ids):  # phase 5 (the orders panel has a stations menu too)
        return "repairs"
    if any(cid.endswith(":submit") for cid in ids):
        return "orders"
    return "wait"


def button_id(message: Message, unit: str, action: str) -> str:
    for cid in message.custom_ids():
        if cid.endswith(f":unit:{unit}:{action}"):
            return cid
    raise AssertionError(f"no {action} button for {unit} in {sorted(message.custom_ids())}: {message.embeds}")


def retargeted(custom_id: str, unit: str) -> str:
    """A panel control's custom id edited to name another unit (what a modified client could send)."""
    return re.sub(r":unit:[^:]+:", f":unit:{unit}:", custom_id, count=1)


async def fill_and_submit(
    fd: FakeDiscord,
    person: Person,
    panel: Message,
    unit: str,
    moves: str = "",
    fire: int = 1,
    *,
    repair: bool = False,
) -> Message:
    """Press the move buttons, pick up to ``fire`` fire declarations (or, in phase 5, the first repair when
    ``repair``), Submit; returns the acknowledgement."""
    step = step_of(panel)
    if step == "decision":
        cid = button_id(panel, unit, "decide")
        options = panel.custom_ids()[cid]["options"]
        handle = await person.select(panel, cid, [options[0]["value"]])
        await handle.acknowledged()
        await fd.wait_for(
            lambda: (d := draft_in(panel)) is not None and d[1].text("choice") == options[0]["value"]
        )
    elif step == "repairs":  # phase 5: the first repair offered (EXO-6.1), or none
        repair_id = next((cid for cid in panel.custom_ids() if cid.endswith(f":unit:{unit}:repairs")), None)
        if repair_id is not None and repair:
            value = panel.custom_ids()[repair_id]["options"][0]["value"]
            handle = await person.select(panel, repair_id, [value])
            await handle.acknowledged()
            await fd.wait_for(lambda: (d := draft_in(panel)) is not None and value in d[1].list("repairs"))
    elif step == "orders":
        for letter in moves:
            before = draft_in(panel)
            handle = await person.click(panel, button_id(panel, unit, letter))
            await handle.acknowledged()
            await fd.wait_for(lambda b=before: draft_in(panel) != b, what="the panel to show the new draft")
        fire_id = next((cid for cid in panel.custom_ids() if cid.endswith(f":unit:{unit}:fire")), None)
        if fire_id is not None and fire:
            values = [o["value"] for o in panel.custom_ids()[fire_id]["options"]][:fire]
            handle = await person.select(panel, fire_id, values)
            await handle.acknowledged()
            await fd.wait_for(
                lambda: (d := draft_in(panel)) is not None and d[1].list("fire") == tuple(values)
            )
    handle = await person.click(panel, button_id(panel, unit, "submit"))
    acks = await handle.wait_for_followups(1, timeout=60)
    return acks[0]
