"""The private order panel in Discord, the same for every ruleset (DESIGN §4).

- :mod:`cogs.panel.load`: a unit's panel for a user, to open (``/orders``, a DM);
- :mod:`cogs.panel.components`: any panel model as an embed and buttons and selects, with their custom ids;
- :mod:`cogs.panel.preview`: the private preview image;
- :mod:`cogs.panel.flow`: what a click does (the draft the message carries, the press, Submit), once the
  service's guards let it in (bot/service/panel_click.py);
- :mod:`cogs.panel.items`: the persistent ``DynamicItem`` every control is, and the panel message.

What a panel offers and what an order says is the ruleset's panel plug-in's (``bot/panels/<id>.py``); nothing
here knows a ruleset.
"""
