"""Image files for ``hexdirector sim --out DIR`` and ``hexdirector demo`` (DESIGN §6)."""

from __future__ import annotations

import re
from pathlib import Path

from render.board import render_board
from render.options import BoardSnapshot, RenderOptions
from rules.ruleset import DIRECTOR, PUBLIC, SimStep


def step_stem(step: SimStep) -> str:
    """``r01-p2`` for round 1 phase "2"; ``r00-start`` for the initial board; phase ids made file-safe."""
    if step.round == 0 and step.phase == "start":
        return "r00-start"
    phase = re.sub(r"[^A-Za-z0-9_-]+", "_", str(step.phase)).strip("_") or "x"
    return f"r{step.round:02d}-p{phase}"


def write_step_images(out_dir: Path, step: SimStep, locale: str = "en") -> list[Path]:
    """Write the public view and the director view of one simulated step, in ``locale`` (the CLI's ``--lang``);
    return the paths written. While a unit is hidden (FOG-1), also each side's own view (``-<side>.png``): what a
    player of that side sees."""
    out_dir.mkdir(parents=True, exist_ok=True)
    snapshot = BoardSnapshot(state=step.state, events=step.events, step=(step.round, step.phase))
    stem = step_stem(step)
    written: list[Path] = []
    views = [("", PUBLIC), ("-director", DIRECTOR)]
    if any(u.hidden for u in step.state.units.values()):
        views.extend((f"-{side.id}", side.id) for side in step.state.sides)
    for suffix, viewer in views:
        path = out_dir / f"{stem}{suffix}.png"
        path.write_bytes(render_board(snapshot, viewer=viewer, options=RenderOptions(locale=locale)))
        written.append(path)
    return written
