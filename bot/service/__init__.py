"""The application floor: encounters end to end, as one :class:`EncounterService` built from mixins.

- :mod:`bot.service.core`: create, join, start, orders, resolution (the class itself);
- :mod:`bot.service.base`: what every part shares (reads, permissions, deadlines);
- :mod:`bot.service.director`, :mod:`bot.service.records`, :mod:`bot.service.replay`,
  :mod:`bot.service.seating`: the director's tools, export and import, replays, units nobody plays;
- :mod:`bot.service.panel_click`: the guards between a panel request and a unit.
"""

from __future__ import annotations

from bot.service.base import Reading
from bot.service.core import EncounterService, bundled_scenarios
from bot.service.records import parse_export

__all__ = ["EncounterService", "Reading", "bundled_scenarios", "parse_export"]
