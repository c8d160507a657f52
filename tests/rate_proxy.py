"""nirn.py (a shared REST rate-limit proxy from the ecosystem, ``pip install nirn.py``), unmodified, in front of the
local Discord, and the load that two bot processes put through it: duels opened at once, then every order given at
once on DM panels. Used by tests/e2e/test_e2e_proxy.py and bench/proxy.py.

nirn.py sends upstream to ``https://discord.com`` only, with no setting for it, so it runs in a mount namespace of
its own whose /etc/hosts resolves discord.com to a loopback address where the local Discord also answers HTTPS
(:meth:`FakeDiscord.serve_https`), with a certificate made for discord.com for the run and trusted by the proxy
alone (``SSL_CERT_FILE``). nirn.py asks the token's limit of Discord at its start (``/api/v9/users/@me``,
``/gateway/bot``), and is told the limit to keep with its own setting, ``BOT_RATELIMIT_OVERRIDES``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from tests.e2e_helpers import fill_and_submit, newest_panel_phase, panel_for_phase
from tests.fakediscord import Channel, FakeDiscord, Person

SHARDS = 2


def cannot_run() -> str | None:
    """Why the proxy cannot be put in front of the local Discord here, or None."""
    if os.geteuid() != 0:
        return "the proxy needs a mount namespace (unshare) and port 443: run as root"
    for tool in ("unshare", "openssl", "mount"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (util-linux, openssl)"
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, check=False)
    if probe.returncode != 0:  # a container without the right to make mount namespaces
        return f"unshare --mount is refused here: {probe.stderr.decode(errors='replace').strip()}"
    try:
        import nirn_proxy  # noqa: F401  # pyright: ignore
    except ImportError:
        return "nirn.py is not installed (pip install nirn.py==1.0.3)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def run(*argv: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    _, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {err.decode()}")


@contextlib.asynccontextmanager
async def nirn_proxy(fd: FakeDiscord, tmp: Path, limit: int) -> AsyncGenerator[str]:
    """nirn.py, unmodified, forwarding to the local Discord; yields the address for ``HEXD_DISCORD_API``."""
    # an address of the loopback network nothing else listens on: port 443 is Discord's
    host = f"127.{random.randint(1, 254)}.{random.randint(1, 254)}.{random.randint(2, 254)}"
    cert, key, hosts, log_path = tmp / "discord.pem", tmp / "discord.key", tmp / "hosts", tmp / "nirn.log"
    await run(
        *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
        *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=discord.com"),
        *("-addext", "subjectAltName=DNS:discord.com"),
    )
    await fd.serve_https(host, str(cert), str(key))
    hosts.write_text(f"127.0.0.1 localhost\n{host} discord.com\n")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEXD_", "DISCORD_"))}
    env |= {
        "BIND_IP": "127.0.0.1",
        "PORT": str(port),
        "ENABLE_METRICS": "false",
        "LOG_LEVEL": "warn",
        "SSL_CERT_FILE": str(cert),
        "BOT_RATELIMIT_OVERRIDES": f"{fd.bot_user_id}:{limit}",
    }
    with log_path.open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            *(
                "unshare",
                "--mount",
                "sh",
                "-c",
                'mount --bind "$1" /etc/hosts && exec "$2" -m nirn_proxy.main',
            ),
            *("sh", str(hosts), sys.executable),
            cwd=str(tmp),  # nirn.py reads a .env from its working directory
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        address = f"http://127.0.0.1:{port}"
        try:
            async with aiohttp.ClientSession() as session:
                for _ in range(200):
                    if proc.returncode is not None:
                        raise RuntimeError(f"nirn.py stopped: {log_path.read_text()}")
                    with contextlib.suppress(aiohttp.ClientError):
                        async with session.get(f"{address}/nirn/healthz") as answer:
                            if answer.status == 200:
                                break
                    await asyncio.sleep(0.05)
                else:
                    raise RuntimeError(f"nirn.py did not start: {log_path.read_text()}")
            yield address
        finally:
            if proc.returncode is None:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), timeout=10)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()


@dataclass
class Duel:
    channel: Channel
    dora: Person
    ana: Person  # Halcón
    bea: Person  # Pirata


def new_duels(fd: FakeDiscord, shard: int, tables: int) -> list[Duel]:
    guild = fd.create_guild(f"Shard {shard}", shard=shard)
    duels: list[Duel] = []
    for n in range(tables):
        channel = guild.create_text_channel(f"duel-{n}")
        dora, ana, bea = (fd.create_user(f"{who}{shard}-{n}") for who in ("dora", "ana", "bea"))
        for person in (dora, ana, bea):
            guild.add_member(person.user)
        duels.append(Duel(channel, dora, ana, bea))
    return duels


def newest_phase(d: Duel) -> int:
    """The newest phase any of the duel's players has a DM panel for (0: none yet)."""
    return newest_panel_phase((d.ana, "halcon"), (d.bea, "pirata"))


def boards(d: Duel) -> int:
    return sum(1 for m in d.channel.messages() if m.attachments and not m.deleted)


async def panels_of_phase(fd: FakeDiscord, d: Duel, phase_no: int) -> None:
    await panel_for_phase(fd, d.ana, "halcon", phase_no)
    await panel_for_phase(fd, d.bea, "pirata", phase_no)


async def open_duel(fd: FakeDiscord, d: Duel) -> None:
    for who, name, options in (
        (d.dora, "encounter new", {"ruleset": "exo", "scenario": "exo-duel"}),
        (d.ana, "encounter join", {}),
        (d.bea, "encounter join", {}),
        (d.dora, "encounter start", {}),
    ):
        await (await who.run_command(d.channel, name, options)).final_response(timeout=120)
    await fd.wait_for(lambda: newest_phase(d) > 0, what="the first phase's panels", timeout=120)
    await panels_of_phase(fd, d, newest_phase(d))


async def play_phase(fd: FakeDiscord, d: Duel) -> None:
    """Both players order on their DM panels at once; then until the step's board and the next panels."""
    phase_no, before = newest_phase(d), boards(d)

    async def order(person: Person, unit: str) -> None:
        panel = await panel_for_phase(fd, person, unit, phase_no)
        await fill_and_submit(fd, person, panel, unit, fire=0)

    await asyncio.gather(order(d.ana, "halcon"), order(d.bea, "pirata"))
    await fd.wait_for(lambda: newest_phase(d) > phase_no, what="the next phase's panels", timeout=120)
    await panels_of_phase(fd, d, newest_phase(d))
    await fd.wait_for(lambda: boards(d) > before, what="the step's board", timeout=120)
