"""The bot in its own process, pointed at this process's local Discord (tests/fakediscord), as in production.

The child is the production :class:`bot.process.client.HexBot` (``AutoShardedBot``) configured from its environment by
:func:`bot.process.config.load_config`, exactly as ``make run`` reads it (``DISCORD_TOKEN``, ``DATABASE_URL``,
``SHARD_COUNT``, ``SHARD_IDS``, ``HEXD_GUILD``, ``LOG_LEVEL``), and served by :func:`bot.process.client.serve` until
SIGTERM, as ``run_bot`` does. Only the two discord.py URLs point here (``HEXD_FAKE_BASE``/``HEXD_FAKE_GATEWAY``),
plus two knobs for a fast start under test (``HEXD_DEADLINE_INTERVAL``, ``HEXD_GUILD_READY_TIMEOUT``).

The child speaks on its stdout, one line each: ``ready CPU`` at discord.py's ready, ``resumed CPU RSS_KB`` once
every running encounter it owns was resumed and its posts drained, ``lag MS`` on each SIGUSR1 (the longest its event
loop was held since the last one: :meth:`BotProcess.lag`), ``exit CPU`` after a clean stop. ``HEXD_BENCH_STALLS=MS``
prints to its stderr the stack of each stall of its loop longer than that; ``HEXD_BENCH_PROFILE=FILE`` writes a
cProfile of it.

Used by the end-to-end tests that need a real process boundary (tests/e2e/test_e2e_shards.py: two processes on
one PostgreSQL, one of them SIGKILLed) and by bench/e2e.py and bench/idle.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakediscord import FakeDiscord

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_kb() -> int:
    """This process's resident memory now (Linux), in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


_RUN_THIS_FILE = "import runpy; runpy.run_path({path!r}, run_name='__main__')"


@dataclass
class BotProcess:
    """One bot process: :meth:`start` (returns at ready), :meth:`kill` (SIGKILL), :meth:`stop` (SIGTERM),
    :meth:`restart`. ``env`` is the child's whole configuration."""

    env: dict[str, str]
    name: str = "bot"
    #: the source tree the bot runs from: this one, or another revision's (bench/e2e.py ``--baseline REV``: this
    #: file serves it, with that tree first on the import path)
    code: Path = ROOT
    proc: asyncio.subprocess.Process | None = None
    ready_cpu: float = 0.0
    starts: int = 0
    lines: list[str] = field(default_factory=lambda: list[str]())

    async def start(self, *, timeout: float = 60.0) -> BotProcess:
        here = self.code == ROOT
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            # another tree: this file run by path, the other tree's packages first (not as a script: its folder,
            # tests/, would come first on the path, and tests/bot/ would shadow the bot package)
            *(
                ("-m", "tests.bot_process")
                if here
                else ("-c", _RUN_THIS_FILE.format(path=str(Path(__file__).resolve())))
            ),
            stdin=asyncio.subprocess.PIPE,  # never written: its end tells the child this process is gone
            stdout=asyncio.subprocess.PIPE,
            env=self.env if here else self.env | {"PYTHONPATH": str(self.code)},
            cwd=str(self.code),
            start_new_session=True,  # its own process group: kill() takes its render workers with it
        )
        self.starts += 1
        word, rest = await self.read_line(timeout=timeout)
        if word != "ready":
            await self._reap()
            raise RuntimeError(f"{self.name} did not start: {word} {rest}".strip())
        self.ready_cpu = float(rest[0])
        return self

    async def read_line(self, *, timeout: float = 60.0) -> tuple[str, list[str]]:
        """The child's next report line, split (``("", [])`` when it has exited)."""
        assert self.proc is not None and self.proc.stdout is not None
        raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout=timeout)
        text = raw.decode().strip()
        if text:
            self.lines.append(text)
        word, *rest = text.split() or [""]
        return word, rest

    async def lag(self, *, timeout: float = 60.0) -> float:
        """The longest the bot held its event loop since the last call, in ms (its ``lag`` line on SIGUSR1)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGUSR1)
        while True:
            word, rest = await self.read_line(timeout=timeout)
            if word == "lag":
                return float(rest[0])
            if not word:
                raise RuntimeError(f"{self.name} exited")

    async def wait_resumed(self, *, timeout: float = 60.0) -> tuple[float, int]:
        """Until the child has resumed the running encounters it owns; returns its CPU seconds and RSS (kB)."""
        while True:
            word, rest = await self.read_line(timeout=timeout)
            if word == "resumed":
                return float(rest[0]), int(rest[1])
            if not word:
                raise RuntimeError(f"{self.name} exited before resuming")

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def kill(self) -> None:
        """SIGKILL to the bot and its render workers (its process group, as a service manager or the OOM killer
        of a container ends it): no shutdown, no drain, connections dropped mid-way."""
        if self.running:
            assert self.proc is not None
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        await self._reap()

    async def stop(self, *, timeout: float = 30.0) -> float | None:
        """SIGTERM, as a service manager stops the bot; returns the child's CPU seconds at exit (None if killed)."""
        cpu: float | None = None
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                while True:
                    word, rest = await self.read_line(timeout=timeout)
                    if word == "exit":
                        cpu = float(rest[0])
                    if not word:
                        break
        await self._reap()
        return cpu

    async def restart(self, *, timeout: float = 60.0) -> BotProcess:
        await self.kill()
        return await self.start(timeout=timeout)

    async def _reap(self) -> None:
        if self.proc is None:
            return
        if self.proc.returncode is None:
            try:
                await asyncio.wait_for(self.proc.wait(), timeout=30)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                await self.proc.wait()
        if self.proc.stdout is not None:
            with contextlib.suppress(Exception):
                rest = await asyncio.wait_for(self.proc.stdout.read(), timeout=5)
                self.lines.extend(line for line in rest.decode().splitlines() if line.strip())
        # the transport would otherwise be closed by the garbage collector, maybe after the loop is gone
        transport = getattr(self.proc, "_transport", None)
        if transport is not None:
            transport.close()


def bot_env(
    fd: FakeDiscord,
    database_url: str,
    *,
    guild_id: int | None = None,
    shard_count: int | None = None,
    shard_ids: tuple[int, ...] | None = None,
    deadline_interval: float = 3600.0,
    log_level: str = "ERROR",
    extra: dict[str, str] | None = None,
) -> dict[str, str]:
    """The environment ``make run`` would be given, pointed at ``fd``. ``guild_id`` syncs the commands to that
    guild only (``HEXD_GUILD``); without it they are synced globally, as in production."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEXD_", "SHARD_", "DISCORD_"))}
    env |= {
        "DISCORD_TOKEN": fd.bot_token,
        "DATABASE_URL": database_url,
        "LOG_LEVEL": log_level,
        "HEXD_FAKE_BASE": fd.base_url,
        "HEXD_FAKE_GATEWAY": fd.gateway.url,
        "HEXD_DEADLINE_INTERVAL": str(deadline_interval),
        "HEXD_GUILD_READY_TIMEOUT": "0.05",
        "PYTHONUNBUFFERED": "1",
    }
    if guild_id is not None:
        env["HEXD_GUILD"] = str(guild_id)
    if shard_count is not None:
        env["SHARD_COUNT"] = str(shard_count)
    if shard_ids is not None:
        env["SHARD_IDS"] = ",".join(map(str, shard_ids))
    for knob in ("HEXD_BENCH_PROFILE", "HEXD_BENCH_STALLS"):
        if knob in os.environ:
            env[knob] = os.environ[knob]
    return env | (extra or {})


async def spawn_bot(
    fd: FakeDiscord, database_url: str, *, name: str = "bot", code: Path = ROOT, **options: Any
) -> BotProcess:
    """A bot process on ``fd`` (options: :func:`bot_env`'s), started and ready; ``code``: the source tree it runs."""
    return await BotProcess(bot_env(fd, database_url, **options), name=name, code=code).start()


# --- the child ------------------------------------------------------------------------------------------------


def watch_loop_stalls(loop: asyncio.AbstractEventLoop, threshold_ms: float) -> None:
    """``HEXD_BENCH_STALLS=<ms>``: whenever the bot's event loop is held longer than that, print to stderr the
    stack it is held in (sampled by a thread once per stall). How the 800-ship encounter's stalls were found."""
    import threading
    import time
    import traceback

    beat = [time.monotonic()]
    loop_thread = threading.get_ident()

    def watch() -> None:
        reported = 0.0
        while True:
            time.sleep(0.02)
            held = time.monotonic() - beat[0]
            if held * 1000 > threshold_ms and beat[0] != reported:
                reported = beat[0]
                stack = traceback.format_stack(sys._current_frames().get(loop_thread), limit=14)
                print(f"loop held {held * 1000:.0f} ms in:\n{''.join(stack)}", file=sys.stderr, flush=True)

    async def heartbeat() -> None:
        while True:
            beat[0] = time.monotonic()
            await asyncio.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    _keep.add(loop.create_task(heartbeat()))


_keep: set[asyncio.Task[None]] = set()


async def report_loop_lag(tick: float = 0.005) -> None:
    """How long the bot's event loop was held: the largest overshoot of a short sleep since the last SIGUSR1,
    printed as ``lag <ms>`` on each SIGUSR1 (bench/heavy.py reads it around each heavy command). This measures the
    bot alone, where an acknowledgement timed from the people's side also holds the local Discord's own work."""
    worst = 0.0
    loop = asyncio.get_running_loop()

    def report() -> None:
        nonlocal worst
        print("lag", round(worst * 1000, 1), flush=True)
        worst = 0.0

    loop.add_signal_handler(signal.SIGUSR1, report)
    if stalls := os.environ.get("HEXD_BENCH_STALLS"):
        watch_loop_stalls(loop, float(stalls))
    while True:
        before = loop.time()
        await asyncio.sleep(tick)
        worst = max(worst, loop.time() - before - tick)


def time_answers(path: str) -> Callable[[], None]:
    """``HEXD_BENCH_ANSWERS=<file>``: note when the bot starts answering each interaction (its first callback
    request), on the machine's monotonic clock (``time.perf_counter``, the same in every process here). The returned
    function writes them to ``path`` as JSON ``{interaction id: seconds}``. bench/e2e.py sets them against its
    clicks: the bot's share of an acknowledgement, without the local Discord's own handling of the answer (it
    shares the machine's two cores with the bot)."""
    import json
    import time

    from discord.webhook import async_ as webhook

    answered: dict[int, float] = {}
    respond = webhook.AsyncWebhookAdapter.create_interaction_response

    def timed(self: Any, interaction_id: int, *args: Any, **kwargs: Any) -> Any:
        answered.setdefault(int(interaction_id), time.perf_counter())
        return respond(self, interaction_id, *args, **kwargs)

    webhook.AsyncWebhookAdapter.create_interaction_response = timed  # type: ignore[method-assign]

    def write() -> None:
        Path(path).write_text(json.dumps({str(k): v for k, v in answered.items()}))

    return write


def orphaned(then: Callable[[], object], grace: float = 30.0) -> None:
    """When the test process that started this child is gone (its end of our stdin closes), call ``then`` (a
    clean stop), and exit anyway after ``grace`` seconds: a killed test run leaves no bot reconnecting forever."""
    import threading
    import time

    def watch() -> None:
        # the raw descriptor, not sys.stdin: a daemon thread blocked in a buffered read holds its lock, and the
        # interpreter's shutdown then aborts ("could not acquire lock for <stdin>")
        while os.read(0, 4096):
            pass  # returns b"" at end of file only
        then()
        time.sleep(grace)
        os._exit(3)

    threading.Thread(target=watch, daemon=True, name="orphan-watch").start()


def serve_child() -> int:
    """Child side: the production bot from the environment, until SIGTERM (see the module's docstring)."""
    import yarl
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    from bot.logs import setup_logging
    from bot.process.client import HexBot, serve
    from bot.process.config import load_config

    config = load_config(dict(os.environ), dotenv=None)
    setup_logging(config.log_level, token=config.token)
    Route.BASE = f"{os.environ['HEXD_FAKE_BASE']}/api/v10"
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["HEXD_FAKE_GATEWAY"])

    async def run() -> int:
        bot = HexBot(
            config,
            deadline_interval=float(os.environ.get("HEXD_DEADLINE_INTERVAL", "5")),
            guild_ready_timeout=float(os.environ.get("HEXD_GUILD_READY_TIMEOUT", "2")),
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        orphaned(lambda: loop.call_soon_threadsafe(stop.set))
        reported = False

        async def announce_ready() -> None:
            nonlocal reported
            if reported:  # on_ready again after a re-IDENTIFY: said once
                return
            reported = True
            print("ready", cpu_seconds(), flush=True)
            announcer = bot.announcer
            if announcer is not None:
                await announcer.resumed.wait()
                await announcer.drain()
            print("resumed", cpu_seconds(), rss_kb(), flush=True)

        bot.add_listener(announce_ready, "on_ready")
        lag = asyncio.create_task(report_loop_lag())
        try:
            return await serve(bot, config.token, stop)
        finally:
            lag.cancel()
            if plan_to := os.environ.get("HEXD_BENCH_PLAN"):  # the request plan's figures (bench/pace.py)
                waits = {kind.name.lower(): round(s, 3) for kind, s in bot.requests.longest_wait.items()}
                granted = {kind.name.lower(): n for kind, n in bot.requests.granted.items()}
                Path(plan_to).write_text(json.dumps({"longest_wait_s": waits, "granted": granted}))

    answers = os.environ.get("HEXD_BENCH_ANSWERS")
    write_answers = time_answers(answers) if answers else None
    profile_to = os.environ.get("HEXD_BENCH_PROFILE")
    if profile_to:
        import cProfile

        box: dict[str, int] = {}
        cProfile.runctx("box['code'] = asyncio.run(run())", globals(), {"box": box, "run": run}, profile_to)
        code = box.get("code", 1)
    else:
        code = asyncio.run(run())
    if write_answers is not None:
        write_answers()
    print("exit", cpu_seconds(), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(serve_child())
