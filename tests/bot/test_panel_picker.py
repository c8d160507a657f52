"""The unit picker of a panel message for several units (cogs/panel/components.py): where its buttons go within
Discord's five rows, and that the message's layout is one Discord accepts."""

from __future__ import annotations

from typing import Any

import discord
from discord import ui

from bot.orders_reply import Pick
from cogs.panel.components import PICK, ControlRef, with_picker

PICKS = (Pick("halcon", "Halcón", True), Pick("cuervo", "Cuervo", False))


def panel(selects: int, buttons: int) -> list[ui.Button[Any] | ui.Select[Any]]:
    out: list[ui.Button[Any] | ui.Select[Any]] = [
        ui.Select(custom_id=f"s{n}", options=[discord.SelectOption(label="x")]) for n in range(selects)
    ]
    out.extend(ui.Button(label=f"b{n}", custom_id=f"b{n}") for n in range(buttons))
    return out


def laid_out(components: list[ui.Button[Any] | ui.Select[Any]]) -> ui.View:
    view = ui.View(timeout=None)
    for component in components:  # raises when Discord's five rows cannot hold them
        view.add_item(component)
    return view


def picks_of(components: list[ui.Button[Any] | ui.Select[Any]]) -> dict[str, str]:
    refs = {c.label or "": ControlRef.parse(c.custom_id) for c in components if isinstance(c, ui.Button)}
    return {ref.unit_id: label for label, ref in refs.items() if ref is not None and ref.action == PICK}


def test_a_panel_with_a_free_row_gets_the_picker_on_a_first_row_of_its_own() -> None:
    placed = with_picker(panel(3, 3), PICKS, "cuervo", encounter_id=7, phase_no=4)
    assert placed is not None
    laid_out(placed)
    assert picks_of(placed) == {"halcon": "Halcón ✅", "cuervo": "Cuervo"}
    assert [c.row for c in placed] == [0, 0, 1, 2, 3, 4, 4, 4]


def test_a_panel_that_fills_every_row_takes_the_picker_in_its_button_row_when_it_fits_else_none() -> None:
    placed = with_picker(panel(4, 3), PICKS, "halcon", encounter_id=7, phase_no=4)
    assert placed is not None
    laid_out(placed)
    assert set(picks_of(placed)) == {"halcon", "cuervo"}
    assert with_picker(panel(4, 4), PICKS, "halcon", encounter_id=7, phase_no=4) is None
