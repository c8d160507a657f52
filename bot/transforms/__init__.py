"""Pure transforms of the bot: directors' overrides and dice expressions (no Discord, no storage)."""
