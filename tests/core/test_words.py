"""Every text in the reader's words: a command a text tells the reader to use is named as the reader's Discord
client shows it (/órdenes in Spanish, /orders in English), since a name from the other language finds nothing
when typed."""

from __future__ import annotations

import re

import pytest

from data.i18n import LANGUAGES, catalog

# "/name" or "/name sub" in running text (not a path such as data/{ruleset}/terrain.toml, nor a fraction)
COMMAND_IN_TEXT = re.compile(r"(?<![\w/<.}])/([^\W\d][\w-]*)(?: ([^\W\d][\w-]*))?")


def command_names(lang: str) -> tuple[set[str], set[tuple[str, str]]]:
    """The slash commands and their subcommands as ``lang``'s catalog names them (``cmd.<path>.name``)."""
    cat = catalog(lang)
    paths = [
        k[len("cmd.") : -len(".name")].split(".") for k in cat if k.startswith("cmd.") and k.endswith(".name")
    ]
    top = {cat[f"cmd.{p[0]}.name"] for p in paths if len(p) == 1}
    sub = {(cat[f"cmd.{p[0]}.name"], cat[f"cmd.{'.'.join(p)}.name"]) for p in paths if len(p) == 2}
    return top, sub


@pytest.mark.parametrize("lang", LANGUAGES)
def test_commands_named_in_text_are_the_readers_command_names(lang: str) -> None:
    top, sub = command_names(lang)
    groups = {group for group, _ in sub}
    wrong: list[str] = []
    for key, text in sorted(catalog(lang).items()):
        if key.startswith("cmd."):
            continue
        for found in COMMAND_IN_TEXT.finditer(text):
            name, subcommand = found.group(1), found.group(2)
            if name not in top or (
                name in groups and subcommand is not None and (name, subcommand) not in sub
            ):
                wrong.append(f"{key}: {found.group(0)!r}")
    assert wrong == [], wrong
