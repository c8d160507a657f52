"""``make run`` / ``hexdirector run``: read the configuration, set up logging, start the bot."""

from __future__ import annotations

from bot.process.config import ConfigError, load_config


def launch() -> int:
    try:
        config = load_config()
    except ConfigError as exc:
        print(exc.code if isinstance(exc.code, str) else "hexdirector: configuration error")
        return 2
    from bot.process.client import run_bot

    return run_bot(config)
