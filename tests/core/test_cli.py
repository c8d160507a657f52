"""The command line and ``make run`` behaviour that needs no Discord."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.process.cli import main
from bot.process.config import ConfigError, load_config, rest_base


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


def test_hexd_discord_api_unset_leaves_discord_itself() -> None:
    assert load_config({"DISCORD_TOKEN": "t"}, None).discord_api is None
    assert load_config({"DISCORD_TOKEN": "t", "HEXD_DISCORD_API": "  "}, None).discord_api is None


def test_hexd_discord_api_names_the_proxy_and_the_rest_base_follows_it() -> None:
    cfg = load_config({"DISCORD_TOKEN": "abc.def", "HEXD_DISCORD_API": "http://127.0.0.1:8080/"}, None)
    assert cfg.discord_api == "http://127.0.0.1:8080"
    assert rest_base(cfg.discord_api, 10) == "http://127.0.0.1:8080/api/v10"
    # a proxy forwards paths unchanged: an address that already names the API version is kept as it is
    assert rest_base("http://proxy:8080/api/v10", 10) == "http://proxy:8080/api/v10"
    shown = repr(
        load_config({"DISCORD_TOKEN": "abc.def", "HEXD_DISCORD_API": "http://op:s3cret@proxy:8080"}, None)
    )
    assert "abc.def" not in shown and "s3cret" not in shown and "op:***@proxy:8080" in shown


def test_a_hexd_discord_api_that_is_no_web_address_is_refused() -> None:
    with pytest.raises(ConfigError, match="HEXD_DISCORD_API"):
        load_config({"DISCORD_TOKEN": "t", "HEXD_DISCORD_API": "127.0.0.1:8080"}, None)


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
    """Bytes that are not UTF-8 and 100k-deep nesting are problems with a line, exit 2."""
    path = tmp_path / "broken.toml"
    path.write_bytes(content)
    assert main([command, str(path)]) == 2
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert problem in shown and "Traceback" not in shown


# --- validate --lang: a scenario's problems in the reader's language ----------------------------------------

BROKEN = """ruleset = "exo"
name = "x"
[board]
width = 5
height = 5
[[sides]]
id = "a"
[[units]]
id = "u"
side = "b"
at = "0909"
facng = "N"
"""


def test_validate_speaks_spanish_with_lang_es(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "roto.toml"
    path.write_text(BROKEN, encoding="utf-8")
    assert main(["validate", str(path), "--lang", "es"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert f"{path}:10: units[0].side: bando desconocido 'b' (bandos: a)" in err
    assert f"{path}:11: units[0].at: 0909 está fuera del tablero de 5×5" in err
    assert f"{path}:12: units[0].facng: clave desconocida 'facng' (¿quisiste decir 'facing'?)" in err
    assert err[-1] == f"3 problemas en {path}"


def test_validate_stays_english_by_default_whatever_the_shell_lang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default is English, not $LANG: a script or CI job reads the same lines on every machine."""
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    monkeypatch.setenv("LC_ALL", "es_ES.UTF-8")
    path = tmp_path / "broken.toml"
    path.write_text(BROKEN, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert f"{path}:12: units[0].facng: unknown key 'facng' (did you mean 'facing'?)" in err
    assert err[-1] == f"3 problem(s) in {path}"


def test_validate_a_good_file_in_both_languages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from data import SCENARIO_DIR
    from rules.scenario import load_scenario

    path = SCENARIO_DIR / "exo-duel.toml"
    rounds = len(load_scenario(path).rounds)
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out.strip() == (
        f"{path}: ok — exo 'Duelo en el cinturón de Kessel', 2 sides, 3 units, {rounds} scripted rounds"
    )
    assert main(["validate", str(path), "--lang", "es"]) == 0
    assert capsys.readouterr().out.strip() == (
        f"{path}: correcto — exo 'Duelo en el cinturón de Kessel', 2 bandos, 3 unidades, {rounds} rondas preparadas"
    )


def test_validate_refuses_a_language_it_does_not_speak(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["validate", "x.toml", "--lang", "fr"])
    assert exit_.value.code == 2
    assert "invalid choice: 'fr'" in capsys.readouterr().err


def test_validate_help_names_the_language_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    out = capsys.readouterr().out
    assert "--lang {en,es}" in out and "default: en" in out


def test_validate_a_missing_file_in_spanish(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nada.toml"
    assert main(["validate", str(missing), "--lang", "es"]) == 2
    err = capsys.readouterr().err
    assert f"(archivo): no se encuentra el archivo: {missing}" in err and "1 problema en" in err


def test_sim_prints_a_broken_scenario_in_its_lang(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "roto.toml"
    path.write_text(BROKEN, encoding="utf-8")
    assert main(["sim", str(path), "--lang", "es"]) == 2
    err = capsys.readouterr().err
    assert "clave desconocida 'facng' (¿quisiste decir 'facing'?)" in err and "unknown key" not in err


def test_sim_says_a_refused_scripted_order_in_its_lang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scripted order the engine refuses mid-play (one ``validate`` cannot foresee) is said in ``--lang``."""
    from bot.process.cli import _round_error  # pyright: ignore[reportPrivateUsage]
    from rules.errors import IllegalOrderError

    refusal = IllegalOrderError(
        "Veddio cannot see Tyrano.",
        code="skirmish.no_sight",
        rule="SK-3.2",
        params={"name": "Veddio", "target": "Tyrano", "unit": "veddio"},
    )
    english = _round_error(2, refusal, "en")
    assert english == "error: round 2: unit veddio: Veddio cannot see Tyrano. [SK-3.2]"
    spanish = _round_error(2, refusal, "es")
    assert spanish.startswith("error: ronda 2: unidad veddio: ") and spanish.endswith("[SK-3.2]")
    assert "cannot see" not in spanish
