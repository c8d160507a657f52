"""Names shown as names: what enters the game of a typed name (rules/names.py) and how a post shows it
(bot/names.py)."""

from __future__ import annotations

import pytest

from bot.names import escape_markdown, shown_name
from data import SCENARIO_DIR
from rules.names import clean_name
from rules.scenario import load_scenario


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Kara\u202e", "Kara"),  # right-to-left override
        ("Ka\u200bra\u200d", "Kara"),  # zero-width space and joiner
        ("\u2066Kara\u2069", "Kara"),  # left-to-right isolate and its end
        ("\ufeffKara", "Kara"),  # byte-order mark
        ("Kara\nla roja", "Kara la roja"),  # a name is one line
        ("  Kara   la\troja ", "Kara la roja"),
        ("Ñandú 2/1", "Ñandú 2/1"),
    ],
)
def test_a_name_keeps_its_letters_and_loses_invisible_controls(typed: str, kept: str) -> None:
    assert clean_name(typed) == kept


def test_a_description_keeps_its_lines() -> None:
    assert clean_name("Dos patrullas\u202e\n  en la noche", lines=True) == "Dos patrullas\nen la noche"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("[Halcón](https://evil.example)", "\\[Halcón\\](https://evil.example)"),
        ("*Pirata*_x_", "\\*Pirata\\*\\_x\\_"),
        ("||oculto|| ~~x~~ `code`", "\\|\\|oculto\\|\\| \\~\\~x\\~\\~ \\`code\\`"),
        ("<@123> <t:1:R>", "\\<@123\\> \\<t:1:R\\>"),
        ("# Título", "\\# Título"),
        ("- lista", "\\- lista"),
        ("> cita", "\\> cita"),
        ("Jean-Luc #2", "Jean-Luc #2"),
        ("2/1 Pz\u202e", "2/1 Pz"),
    ],
)
def test_a_name_in_a_post_is_escaped_for_markdown_and_masked_links(name: str, shown: str) -> None:
    assert shown_name(name) == shown


def test_a_code_keeps_its_signs() -> None:
    """A modifier written by the rules (``+2 DRM``) is no list item: only ``+ `` at the start would be."""
    assert escape_markdown("+2 DRM") == "+2 DRM"


def test_a_scenario_file_s_names_enter_without_invisible_controls() -> None:
    text = (SCENARIO_DIR / "exo-duel.toml").read_text(encoding="utf-8")
    text = text.replace('name = "Halcón"', 'name = "Hal\\u200bcón\\u202e"').replace(
        'es = "Corsarios"', 'es = "\\u2066Corsarios\\u2069"'
    )
    state = load_scenario(text).state
    assert state.units["halcon"].name == "Halcón"
    assert state.side("red").name == "Corsarios"
