"""A phase account longer than the inline limit goes to the channel as a .txt file (cogs/announcer.py
``step_content``; DESIGN §4 limits), with the embed saying so — in an English and in a Spanish server.

The limit is lowered for the test so the bundled duel's first resolved phase is already "long"; the file must hold
the whole account exactly as the announcer built it, line for line."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import cogs.announcer
from bot.results import StepReport
from bot.storage import Encounter
from bot.text.account import describe
from render.phase import phase_title
from tests.e2e_helpers import Table, encounter_of, play_phase, start_bot
from tests.fakediscord import FakeDiscord, Message

pytestmark = pytest.mark.slow

SMALL_LIMIT = 40  # characters: any real account of a resolved phase is longer

StepContent = Callable[[Encounter, StepReport, str], Awaitable[Any]]


@pytest.mark.parametrize(
    ("server_locale", "lang", "in_file", "title_word"),
    [
        ("en-US", "en", "The account ({count} lines) is in the attached file.", "Round"),
        ("es-ES", "es", "El relato ({count} líneas) va en el archivo adjunto.", "Ronda"),
    ],
)
async def test_a_long_account_is_posted_as_a_text_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server_locale: str,
    lang: str,
    in_file: str,
    title_word: str,
) -> None:
    monkeypatch.setattr(cogs.announcer, "ACCOUNT_INLINE_LIMIT", SMALL_LIMIT)
    async with FakeDiscord() as fd:
        guild = fd.create_guild("Mesa", locale=server_locale)
        channel = guild.create_text_channel("duel")
        dora, ana, bea = (fd.create_user(n, locale=server_locale) for n in ("dora", "ana", "bea"))
        for person in (dora, ana, bea):
            guild.add_member(person.user)
        bot = await start_bot(fd, f"sqlite:///{tmp_path / 'long.sqlite3'}", guild.id)
        try:
            announcer = bot.announcer
            assert isinstance(announcer, cogs.announcer.Announcer)
            posted: list[tuple[StepReport, str]] = []
            original: StepContent = announcer.step_content

            async def recording(meta: Encounter, step: StepReport, locale: str) -> Any:
                posted.append((step, locale))
                return await original(meta, step, locale)

            monkeypatch.setattr(announcer, "step_content", recording)
            t = Table(fd, bot, channel, dora, ana, bea, "", guild.id)
            await (
                await dora.run_command(channel, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"})
            ).final_response()
            await (await ana.run_command(channel, "encounter join")).final_response()
            await (await bea.run_command(channel, "encounter join")).final_response()
            await (await dora.run_command(channel, "encounter start")).final_response()
            enc = (await encounter_of(t)).id
            await play_phase(t, enc, ana_moves="D", bea_moves="I")

            def first_file_post() -> Message | None:
                return next(
                    (
                        m
                        for m in channel.messages()
                        if any(a.filename.endswith(".txt") for a in m.attachments)
                    ),
                    None,
                )

            post = await fd.wait_for(first_file_post, what="an account sent as a file", timeout=60)
            await bot.settle()
            txt = next(a for a in post.attachments if a.filename.endswith(".txt"))
            text = txt.read().decode("utf-8")
            step, locale = next(
                (s, loc)
                for s, loc in posted
                if txt.filename == f"round{s.round:02d}-phase{s.phase}-step{s.phase_no}.txt"
                and s.public_events
            )
            # one message holds the steps of a resolution: the step's own embed is the one titled with its phase
            when = phase_title(step.state, step.round, step.phase, lang)
            embed = next(e for e in post.embeds if str(e.get("title", "")).endswith(when))
            assert locale == lang
            expected = [describe(e, step.state, lang) for e in step.public_events]
            assert text.split("\n") == expected  # the whole account, every line, in the channel's language
            assert len(text) > SMALL_LIMIT
            assert embed["description"] == in_file.format(count=len(expected))
            assert title_word in str(embed["title"])
            assert text not in str(post.embeds)  # the account is not inlined as well
            if step.board_changed:  # the board image still comes with the step's embed
                board = f"board-{step.phase_no}.png"
                assert any(a.filename == board for a in post.attachments)
                assert embed["image"]["url"] == f"attachment://{board}"
        finally:
            await bot.close()
