"""The process floor: the Discord client, its configuration, the launcher and the command line."""
