"""Text for readers: the account of a phase and the rules reference."""
