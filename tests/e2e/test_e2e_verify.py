"""Dice anyone can verify (DICE-1), through the real client: the status shows the open step's sealed dice, the
account of a resolved step reveals its seed and salt, and ``/encounter verify`` checks every roll privately for
whoever sits at the table, refusing (privately) anyone else."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from tests.e2e_helpers import open_duel, play_phase, room, wait_phase_after

REVEAL = re.compile(r"🎲 Dice: seed ([0-9a-f]{16}) · salt ([0-9a-f]{8}) → ([0-9a-f]{12})")
COMMITTED = re.compile(r"🎲 Dice sealed: ([0-9a-f]{12})")


async def test_dice_1_sealed_revealed_and_verified_privately(tmp_path: Path) -> None:
    async with room(tmp_path, channel_name="duel", seal_dice=True) as t:
        enc = await open_duel(t)
        shown: set[str] = set()
        for _ in range(4):
            await t.bot.settle()
            shown |= set(
                COMMITTED.findall(
                    json.dumps(
                        [m.content for m in t.channel.messages()]
                        + [e.get("description", "") for m in t.channel.messages() for e in m.embeds],
                        ensure_ascii=False,
                    )
                )
            )
            phase_no = (await t.bot.service.read(enc)).phase_no
            await play_phase(t, enc)
            await wait_phase_after(t, enc, phase_no)
        await t.bot.settle()
        channel = json.dumps([[m.content, m.embeds] for m in t.channel.messages()], ensure_ascii=False)
        reveals = REVEAL.findall(channel)
        assert reveals, "a step with public rolls reveals its seed"
        for seed, salt, commitment in reveals:
            assert hashlib.sha256((salt + seed).encode()).hexdigest()[:12] == commitment
        # what was revealed is what the status had shown sealed while the step was open
        assert {c for _, _, c in reveals} & shown

        checked = await (await t.ana.run_command(t.channel, "encounter verify")).final_response(timeout=60)
        assert checked.ephemeral and checked.content.splitlines()[-1].startswith("✅ Verified")

        carla = t.fd.create_user("carla")
        t.fd.world.guilds[t.guild_id].add_member(carla.user)
        refused = await (await carla.run_command(t.channel, "encounter verify")).final_response(timeout=60)
        assert refused.ephemeral and "/encounter join" in refused.content
