"""What the renderer is asked to draw: a state snapshot plus keyword-only options (DESIGN §5)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.events import Event
from rules.hexgrid import Hex
from rules.state import EncounterState

MIN_WIDTH = 1024  # narrower images are unreadable once Discord scales them down on a phone
MAX_WIDTH = 4096  # keeps every image far below the 10 MiB upload limit
#: colour schemes: the standard one (the scenario's side colours on its own board) and a high-contrast one (sides
#: far apart for every colour vision, on a dark neutral board whose terrain is toned down: render/colours.py)
STANDARD = "standard"
CONTRAST = "contrast"
SCHEMES = (STANDARD, CONTRAST)


@dataclass(frozen=True, slots=True)
class BoardSnapshot:
    """The state after a step and the events of that step (moves → trails, shots → firing lines)."""

    state: EncounterState
    events: tuple[Event, ...] = ()
    title: str = ""
    #: (round, phase) the picture shows, when it is the step just resolved rather than the state's current phase
    #: (the channel board after phase 2 shows "Fase 2", as its account does: one phase number)
    step: tuple[int, str] | None = None
    #: (unit id, hex it stood on before): a catch-up's picture ghosts where units were (render/ghosts.py)
    ghosts: tuple[tuple[str, Hex], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderOptions:
    """How to draw. ``palette`` + a low ``png_level`` are the fast path; RGB at level 6 is the naive one."""

    width: int = 1280
    locale: str = "en"
    whole_board: bool = False  # bounded boards: show every hex even when that makes hexes small
    show_panel: bool = True
    png_level: int = 1
    palette: bool = True
    title: str = ""
    scheme: str = STANDARD  # one of SCHEMES

    def __post_init__(self) -> None:
        if not MIN_WIDTH <= self.width <= MAX_WIDTH:
            raise ValueError(f"width must be between {MIN_WIDTH} and {MAX_WIDTH} px, got {self.width}")
        if not 0 <= self.png_level <= 9:
            raise ValueError(f"png_level must be 0-9, got {self.png_level}")
        if self.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {SCHEMES}, got {self.scheme!r}")
