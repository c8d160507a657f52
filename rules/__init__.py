"""The pure rules engine: hex math, dice, immutable state, events and one subpackage per ruleset.

Standard library only (plus ``data`` tables): no asyncio, no Discord, no database (DESIGN §1).
"""
