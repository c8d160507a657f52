"""Per-ruleset plug-ins of the bot that are not order panels: the record sheets ``/unit info`` shows
(``sheets/``) and the words the account adds to a plug-in's events (``text/``)."""
