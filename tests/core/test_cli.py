"""The command line and ``make run`` behaviour that needs no Discord."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.config import ConfigError, load_config


def test_run_without_a_token_exits_with_a_clear_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    assert main(["run"]) == 2
    out = capsys.readouterr().out
    assert "DISCORD_TOKEN" in out and ".env" in out


def test_config_reads_dotenv_and_never_shows_the_token(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text('# secrets\nexport DISCORD_TOKEN="abc.def.ghi"\nHEXD_GUILD=1234\n', encoding="utf-8")
    cfg = load_config({"DATABASE_URL": "postgresql://bob:hunter2@db/hex"}, env_file)
    assert cfg.token == "abc.def.ghi" and cfg.dev_guild == 1234
    shown = repr(cfg)
    assert "abc.def.ghi" not in shown and "hunter2" not in shown and "bob:***@db" in shown
    assert cfg.database_url.startswith("postgresql://")


def test_config_defaults_to_sqlite() -> None:
    cfg = load_config({"DISCORD_TOKEN": "t"}, None)
    assert cfg.database_url.startswith("sqlite:///")


def test_bad_dev_guild_is_refused() -> None:
    with pytest.raises(ConfigError, match="HEXD_GUILD"):
        load_config({"DISCORD_TOKEN": "t", "HEXD_GUILD": "abc"}, None)


def test_no_subcommand_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 1
    assert "sim" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["validate", "sim"])
@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'ruleset = "exo"\nname = "\xff\xfe"\n', ":2: (file): not UTF-8 text"),
        (b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
    ],
    ids=["invalid-utf8", "deep-nesting"],
)
def test_an_unreadable_scenario_exits_2_with_a_problem_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, content: bytes, problem: str
) -> None:
    """Issue 15 item 9: bytes that are not UTF-8 and 100k-deep nesting are problems with a line, exit 2."""
    path = tmp_path / "broken.toml"
    path.write_bytes(content)
    assert main([command, str(path)]) == 2
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert problem in shown and "Traceback" not in shown
