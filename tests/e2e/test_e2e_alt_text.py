"""Every picture the bot sends carries alt text (Discord's attachment description), end to end through the real
discord.py client and the local Discord: a round of one scenario of each ruleset and of the night layer, played
with one player on DMs and one on ``/orders``, then the boards, replay, arcs and record sheet a player asks for.
The measure is the share of pictures with a description (target: all of them), printed with ``-s``."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.phase_gate import CONFIRM_WITHIN_MS
from tests.e2e_helpers import Table, room
from tests.fakediscord import Person
from tests.fakediscord.state import Attachment

pytestmark = pytest.mark.slow

#: one bundled scenario per ruleset, and the night layer over two of them (ruleset, scenario)
GAMES = (
    ("exo", "exo-ambush"),
    ("skirmish", "skirmish-corridor"),
    ("mech", "mech-duel"),
    ("pbw", "pbw-brawl"),
    ("ocs", "ocs-gazala"),
    ("skirmish", "skirmish-night"),
    ("mech", "mech-night"),
)
PICTURES = (".png", ".gif", ".jpg", ".webp")
RESOLVES = 40


def pictures(t: Table) -> list[Attachment]:
    return [a for a in t.fd.world.attachments.values() if a.filename.lower().endswith(PICTURES)]


async def ask(person: Person, t: Table, command: str, options: dict[str, object] | None = None) -> None:
    await (await person.run_command(t.channel, command, options or {})).final_response(timeout=120)
    await t.bot.settle()


@pytest.mark.parametrize(("ruleset", "scenario"), GAMES, ids=[s for _, s in GAMES])
async def test_every_picture_of_a_round_has_alt_text_in_its_readers_language(
    tmp_path: Path, ruleset: str, scenario: str
) -> None:
    async with room(tmp_path) as t:
        t.bea.close_dms()
        await ask(t.director, t, "encounter new", {"ruleset": ruleset, "scenario": scenario})
        meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
        assert meta is not None
        state = (await t.bot.service.read(meta.id)).state
        sides = list(dict.fromkeys(u.side for u in state.units.values()))
        for unit in state.units.values():
            await ask(t.ana if unit.side == sides[0] else t.bea, t, "encounter join", {"unit": unit.id})
        await ask(t.director, t, "encounter start")
        first = (await t.bot.service.read(meta.id)).state.round
        for _ in range(RESOLVES):
            seen = await t.bot.service.read(meta.id)
            if seen.state.over or seen.state.round > first:
                break
            hers = await t.bot.service.my_units(meta.id, t.bea.id)
            if any(u in t.bot.service.owing(seen.state) for u in hers):
                await ask(t.bea, t, "orders")
            t.fd.advance_clock(CONFIRM_WITHIN_MS + 1)  # the phase has been in front of the director a while
            await ask(t.director, t, "director resolve")
        mine = next(u.id for u in state.units.values() if u.side == sides[0])
        await ask(t.ana, t, "encounter board", {"view": "mine"})
        await ask(t.director, t, "encounter board", {"view": "public", "post": True})
        await ask(t.ana, t, "unit arcs", {"unit": mine})
        await ask(t.ana, t, "unit info", {"unit": mine})
        await ask(t.ana, t, "encounter replay", {"view": "public"})
        shown = pictures(t)
        described = [a for a in shown if a.description]
        print(f"alt text {scenario}: {len(described)}/{len(shown)} pictures described")
        assert len(shown) >= 3, [a.filename for a in shown]
        assert described == shown, [a.filename for a in shown if not a.description]
        assert all(len(a.description or "") <= 1024 for a in shown)
        # the channel reads the channel's language (English here), with the step or the board's view named
        public = [m for m in t.channel.history if m.visible_to is None]
        channel_boards = [a for m in public for a in m.attachments if a.filename.endswith(PICTURES)]
        assert channel_boards and all(
            (a.description or "").startswith(("Public view", "Animated replay")) for a in channel_boards
        ), [a.description for a in channel_boards]
