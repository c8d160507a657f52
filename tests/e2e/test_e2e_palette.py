"""``/settings palette`` end to end (real bot, local Discord): a person's high-contrast colours reach the pictures
only they see and never the channel's; the server's default, set by Manage Server only, reaches public posts.
Pixel probes on a unit's counter, at the centre the renderer's trace gives for the same picture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from render import BoardSnapshot, RenderOptions
from render.board import trace_board
from render.colours import CONTRAST_SIDES, side_colors
from rules.state import EncounterState
from tests.e2e_helpers import Table, room
from tests.fakediscord import Message, Person
from tests.fakediscord.state import DEFAULT_EVERYONE_PERMISSIONS
from tests.render_fixtures import decode, share_of

MANAGE_GUILD = 1 << 5  # Discord's permission bit


async def said(t: Table, person: Person, command: str, options: dict[str, Any] | None = None) -> Message:
    reply = await (await person.run_command(t.channel, command, options or {})).final_response(timeout=60)
    await t.bot.settle()
    return reply


def counter_colour_share(
    png: bytes, state: EncounterState, title: str, viewer: str, unit: str, colour: tuple[int, int, int]
) -> float:
    """How much of the middle of ``unit``'s counter is exactly ``colour``."""
    trace = trace_board(
        BoardSnapshot(state, (), title=title), viewer=viewer, options=RenderOptions(locale="en")
    )
    centre, radius = trace.counters[unit]
    return share_of(decode(png), centre, max(2, round(radius * 0.5)), colour)


async def test_a_players_palette_colours_their_own_board_and_the_servers_default_the_public_posts(
    tmp_path: Path,
) -> None:
    async with room(tmp_path) as t:
        await said(t, t.director, "encounter new", {"ruleset": "exo", "scenario": "exo-ambush"})
        await said(t, t.ana, "encounter join", {"side": "red"})
        await said(t, t.director, "encounter start")
        meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
        assert meta is not None
        state = (await t.bot.service.read(meta.id)).state
        standard, contrast = side_colors(state)["red"], CONTRAST_SIDES[0]

        def share(reply: Message, viewer: str, colour: tuple[int, int, int]) -> float:
            board = next(a for a in reply.attachments if a.filename.endswith(".png"))
            return counter_colour_share(board.data, state, meta.name, viewer, "halcon", colour)

        chose = await said(t, t.ana, "settings palette", {"scheme": "contrast"})
        assert chose.ephemeral and "high contrast" in chose.content, chose.content
        mine = await said(t, t.ana, "encounter board", {"view": "mine"})
        assert mine.ephemeral
        assert share(mine, "red", contrast) > 0.3 and share(mine, "red", standard) == 0, "her own board"
        posted = await said(t, t.director, "encounter board", {"view": "public", "post": True})
        assert not posted.ephemeral
        assert share(posted, "public", standard) > 0.3 and share(posted, "public", contrast) == 0, (
            "one person's palette never changes what the table sees"
        )
        # the server's default is a server setting: Manage Server only, refused in private and nothing written
        refused = await said(t, t.bea, "settings palette", {"scheme": "contrast", "server": True})
        assert refused.ephemeral and "Only members with Manage Server" in refused.content, refused.content
        assert (await t.bot.service.guild_settings(t.guild_id)).palette is None
        guild = t.fd.world.guilds[t.guild_id]
        olga = t.fd.create_user("olga")
        guild.add_member(olga.user, permissions=DEFAULT_EVERYONE_PERMISSIONS | MANAGE_GUILD)
        done = await said(t, olga, "settings palette", {"scheme": "contrast", "server": True})
        assert done.ephemeral and "Public pictures" in done.content, done.content
        shown = await said(t, olga, "settings show")
        assert "Colours of public pictures: high contrast" in shown.content, shown.content
        posted = await said(t, t.director, "encounter board", {"view": "public", "post": True})
        assert share(posted, "public", contrast) > 0.3 and share(posted, "public", standard) == 0
        # Ana goes back to the standard colours for herself; the server's default stays on public posts
        await said(t, t.ana, "settings palette", {"scheme": "standard"})
        mine = await said(t, t.ana, "encounter board", {"view": "mine"})
        assert share(mine, "red", standard) > 0.3 and share(mine, "red", contrast) == 0


async def test_ngt_9_a_sides_dm_board_takes_its_players_palette_and_the_directors_view_keeps_his(
    tmp_path: Path,
) -> None:
    """NGT-9: at night each side gets its own board by DM; Ana's is drawn in the colours she chose, the
    director's (who chose nothing) in the standard ones."""
    async with room(tmp_path) as t:
        await said(t, t.director, "encounter new", {"ruleset": "skirmish", "scenario": "skirmish-night"})
        await said(t, t.ana, "encounter join", {"side": "rfp"})
        await said(t, t.ana, "settings palette", {"scheme": "contrast"})
        await said(t, t.director, "encounter start")
        meta = await t.bot.service.storage.active_encounter_in_channel(t.guild_id, t.channel.id)
        assert meta is not None
        state = (await t.bot.service.read(meta.id)).state
        standard, contrast = side_colors(state)["rfp"], CONTRAST_SIDES[0]

        def board_of(person: Person) -> bytes:
            boards = [a for m in person.dms() for a in m.attachments if a.filename.startswith("board")]
            assert boards, [m.content for m in person.dms()]
            return boards[0].data

        def share(png: bytes, viewer: str, colour: tuple[int, int, int]) -> float:
            trace = trace_board(
                BoardSnapshot(state, (), title=meta.name, step=(state.round, state.phase)),
                viewer=viewer,
                options=RenderOptions(locale="en"),
            )
            centre, radius = trace.counters["veddio"]
            return share_of(decode(png), centre, max(2, round(radius * 0.5)), colour)

        hers, his = board_of(t.ana), board_of(t.director)
        assert share(hers, "rfp", contrast) > 0.3 and share(hers, "rfp", standard) == 0
        assert share(his, "director", standard) > 0.3 and share(his, "director", contrast) == 0
