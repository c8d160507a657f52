"""Per-ruleset plug-ins of the bot that are not order panels (the record sheets ``/unit info`` shows)."""
