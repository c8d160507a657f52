"""One channel message per resolution, so the channel stays quiet: the announcer adds a step to the message of the
resolution under way while it fits in one Discord message, and starts a new message past Discord's limits or
once a phase opens."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import discord

from bot.alt_text import Upload
from bot.turn_posts import EMBEDS_TEXT_LIMIT, MAX_ATTACHMENTS, MAX_EMBEDS
from cogs.announcer import Announcer, OpenPost


class FakeMessage:
    """What the announcer uses of a sent ``discord.Message``: its attachments and ``edit``."""

    def __init__(self, attachments: int = 0) -> None:
        self.attachments: list[object] = [object() for _ in range(attachments)]
        self.edits: list[dict[str, Any]] = []

    async def edit(self, **kwargs: Any) -> FakeMessage:
        self.edits.append(kwargs)
        self.attachments = list(kwargs["attachments"])
        return self


def embed(chars: int) -> discord.Embed:
    return discord.Embed(title="t", description="x" * (chars - 1))


def open_post(message: FakeMessage, *embeds: discord.Embed) -> OpenPost:
    return OpenPost(cast(discord.Message, message), list(embeds))


async def test_a_step_is_added_to_the_message_of_the_resolution_under_way() -> None:
    announcer = Announcer(cast(Any, None))
    message = FakeMessage(attachments=1)
    announcer.turns.open_posts[1] = open_post(message, embed(100))
    added = await announcer.turns.append(1, [embed(200)], [Upload("board-3.png", b"png")])
    assert added
    (edit,) = message.edits
    assert len(edit["embeds"]) == 2 and len(edit["attachments"]) == 2
    assert edit["attachments"][1].filename == "board-3.png"


async def test_past_discords_limits_or_once_a_phase_opens_a_step_starts_a_new_message() -> None:
    announcer = Announcer(cast(Any, None))
    posts = announcer.turns.open_posts
    append = announcer.turns.append
    cases: list[tuple[OpenPost, list[discord.Embed], list[Upload]]] = [
        (open_post(FakeMessage(), embed(EMBEDS_TEXT_LIMIT - 100)), [embed(200)], []),  # 6000 characters
        (open_post(FakeMessage(), *[embed(10) for _ in range(MAX_EMBEDS)]), [embed(10)], []),  # 10 embeds
        (open_post(FakeMessage(attachments=MAX_ATTACHMENTS), embed(10)), [embed(10)], [Upload("b.png", b"")]),
    ]
    for post, embeds, uploads in cases:
        posts[1] = post
        assert not await append(1, embeds, uploads)
        assert 1 not in posts, "a full message is closed: the next steps start the new one"
    posts[1] = open_post(FakeMessage(), embed(10))
    announcer.close_post(1)
    assert not await append(1, [embed(10)], [])


async def test_after_a_restart_a_step_already_in_its_turns_message_is_not_added_again() -> None:
    """The edit that added a step went out, the record that it was shown did not (a crash between them): the
    restarted announcer finds the turn's message again and adds only what it does not show yet."""
    announcer = Announcer(cast(Any, None))
    message = FakeMessage(attachments=0)
    message.attachments = [SimpleNamespace(filename="board-4.png")]
    shown = discord.Embed(title="Round 1", description="Lana turns.")
    posts = announcer.turns.open_posts
    posts[1] = OpenPost(cast(discord.Message, message), [shown], "1:lana", recovered=True)
    append = announcer.turns.append
    again = discord.Embed(title="Round 1", description="Lana turns.")
    assert await append(1, [again], [Upload("board-4.png", b"png")])
    assert await append(1, [discord.Embed(title="Round 1", description="Lana turns.")], [])
    assert not message.edits, "nothing is shown twice"
    assert await append(
        1, [discord.Embed(title="Round 1", description="Lana ends.")], [Upload("board-5.png", b"")]
    )
    (edit,) = message.edits
    assert len(edit["embeds"]) == 2 and [a.filename for a in edit["attachments"]] == [
        "board-4.png",
        "board-5.png",
    ]
