"""The schema as forward migrations: step N brings a database from version N-1 to N, in one transaction.

``MIGRATIONS`` is SQLite's list, ``POSTGRES_MIGRATIONS`` PostgreSQL's (64-bit ids, identity columns); both
lists describe the same tables and always have the same length. Never edit a step that has shipped; append one. Times are ISO 8601 UTC text with microseconds, so they
compare correctly as strings. Per-encounter sequence numbers (``seq``) number the event log from 1.
"""

from __future__ import annotations

from typing import Final

import aiosqlite

from .model import StorageError

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    # 1: encounters, participants, event log, orders, snapshots, guild settings, deadlines, message refs
    (
        """
        CREATE TABLE encounters (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            guild_id     INTEGER NOT NULL,
            channel_id   INTEGER NOT NULL,
            ruleset      TEXT    NOT NULL,
            name         TEXT    NOT NULL,
            created_by   INTEGER NOT NULL,
            status       TEXT    NOT NULL CHECK (status IN ('open', 'running', 'paused', 'ended')),
            settings     TEXT    NOT NULL,
            phase_no     INTEGER NOT NULL,
            snapshot_seq INTEGER NOT NULL,  -- the current snapshot (the latest one)
            opened_seq   INTEGER NOT NULL,  -- when the current phase opened in this timeline: older orders are void
            last_seq     INTEGER NOT NULL,
            created_at   TEXT    NOT NULL,
            updated_at   TEXT    NOT NULL
        )
        """,
        # One live encounter per channel, enforced by the database so two racing "/encounter new" cannot both win.
        "CREATE UNIQUE INDEX encounters_live_channel ON encounters (guild_id, channel_id) WHERE status != 'ended'",
        "CREATE INDEX encounters_guild ON encounters (guild_id, id)",
        """
        CREATE TABLE participants (
            encounter_id INTEGER NOT NULL REFERENCES encounters (id),
            user_id      INTEGER NOT NULL,
            role         TEXT    NOT NULL CHECK (role IN ('director', 'codirector', 'player')),
            side         TEXT    NOT NULL DEFAULT '',  -- '' = none, so the primary key can cover it
            unit         TEXT    NOT NULL DEFAULT '',
            joined_at    TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, user_id, role, side, unit)
        ) WITHOUT ROWID
        """,
        "CREATE UNIQUE INDEX participants_unit_holder ON participants (encounter_id, unit) WHERE unit != ''",
        """
        CREATE TABLE events (
            encounter_id INTEGER NOT NULL REFERENCES encounters (id),
            seq          INTEGER NOT NULL,
            type         TEXT    NOT NULL,
            payload      TEXT    NOT NULL,
            phase_no     INTEGER NOT NULL,
            created_at   TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, seq)
        ) WITHOUT ROWID
        """,
        # Order contents live apart from the log so that reading the log never reveals a secret order.
        """
        CREATE TABLE orders (
            encounter_id INTEGER NOT NULL,
            seq          INTEGER NOT NULL,
            phase_no     INTEGER NOT NULL,
            unit_id      TEXT    NOT NULL,
            user_id      INTEGER NOT NULL,
            body         TEXT    NOT NULL,
            accepted_at  TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, seq),
            FOREIGN KEY (encounter_id, seq) REFERENCES events (encounter_id, seq)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX orders_phase_unit ON orders (encounter_id, phase_no, unit_id, seq)",
        """
        CREATE TABLE snapshots (
            encounter_id INTEGER NOT NULL,
            seq          INTEGER NOT NULL,  -- the event that produced this snapshot
            phase_no     INTEGER NOT NULL,
            opened_seq   INTEGER NOT NULL,
            parent_seq   INTEGER,           -- the snapshot an undo returns to; NULL for the first one
            state        TEXT    NOT NULL,
            created_at   TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, seq),
            FOREIGN KEY (encounter_id, seq) REFERENCES events (encounter_id, seq)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE guild_settings (
            guild_id                 INTEGER PRIMARY KEY,
            language                 TEXT,
            director_role_id         INTEGER,
            default_deadline_minutes INTEGER,
            tutorial_shown           INTEGER NOT NULL DEFAULT 0,
            updated_at               TEXT    NOT NULL
        )
        """,
        """
        CREATE TABLE deadlines (
            encounter_id INTEGER PRIMARY KEY REFERENCES encounters (id),
            phase_no     INTEGER NOT NULL,
            due_at       TEXT    NOT NULL
        )
        """,
        "CREATE INDEX deadlines_due ON deadlines (due_at)",
        """
        CREATE TABLE message_refs (
            encounter_id INTEGER NOT NULL REFERENCES encounters (id),
            kind         TEXT    NOT NULL,
            key          TEXT    NOT NULL,
            channel_id   INTEGER NOT NULL,
            message_id   INTEGER NOT NULL,
            updated_at   TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, kind, key)
        ) WITHOUT ROWID
        """,
    ),
    # 2: a reminder time on each deadline (the players still missing get a DM then, once)
    (
        "ALTER TABLE deadlines ADD COLUMN remind_at TEXT",
        "CREATE INDEX deadlines_remind ON deadlines (remind_at)",
    ),
    # 3: how many encounters one member may keep open (NULL: the bot's default, 0: no limit) and whether only
    # members with Manage Server may import an encounter
    (
        "ALTER TABLE guild_settings ADD COLUMN max_open_encounters INTEGER",
        "ALTER TABLE guild_settings ADD COLUMN import_managers_only INTEGER NOT NULL DEFAULT 0",
    ),
    # 4: the server's idle reminder: hours a phase without a deadline may wait before the director is reminded
    ("ALTER TABLE guild_settings ADD COLUMN idle_reminder_hours INTEGER",),
    # 5: the Discord id of the channel message that first showed the current phase (0: not shown yet), so a
    # director's command given before it was seen is known to be meant for an earlier phase
    ("ALTER TABLE encounters ADD COLUMN announced_id INTEGER NOT NULL DEFAULT 0",),
    # 6: the colour scheme of pictures: the server's for its public posts (NULL: the standard one) and each
    # person's for the pictures only they see
    (
        "ALTER TABLE guild_settings ADD COLUMN palette TEXT",
        """
        CREATE TABLE user_settings (
            user_id    INTEGER PRIMARY KEY,
            palette    TEXT,
            updated_at TEXT    NOT NULL
        )
        """,
    ),
    # 7: DM clicks handed by the process that received them to the process running the encounter's server
    # (bot/handoff.py); only PostgreSQL serves several processes, so SQLite's table stays empty: it is here so
    # both schemas list the same tables
    (
        """
        CREATE TABLE handoffs (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            shard      INTEGER NOT NULL,
            payload    TEXT    NOT NULL,
            created_at TEXT    NOT NULL DEFAULT CURRENT_TIMESTAMP
        )
        """,
    ),
    # 8: each person's DM channel with the bot, as Discord gave it when it was first opened (or as a click in it
    # showed it): a DM to them goes straight there, from any process and after a restart, without asking Discord
    # to open it again (a bucket all DM openings of the bot share)
    (
        """
        CREATE TABLE dm_channels (
            user_id    INTEGER PRIMARY KEY,
            channel_id INTEGER NOT NULL
        )
        """,
    ),
)


POSTGRES_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    # 1: as SQLite's step 1; Discord ids need BIGINT, JSON stays TEXT so exports keep their bytes
    (
        """
        CREATE TABLE encounters (
            id           BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            guild_id     BIGINT  NOT NULL,
            channel_id   BIGINT  NOT NULL,
            ruleset      TEXT    NOT NULL,
            name         TEXT    NOT NULL,
            created_by   BIGINT  NOT NULL,
            status       TEXT    NOT NULL CHECK (status IN ('open', 'running', 'paused', 'ended')),
            settings     TEXT    NOT NULL,
            phase_no     INTEGER NOT NULL,
            snapshot_seq INTEGER NOT NULL,
            opened_seq   INTEGER NOT NULL,
            last_seq     INTEGER NOT NULL,
            created_at   TEXT    NOT NULL,
            updated_at   TEXT    NOT NULL
        )
        """,
        "CREATE UNIQUE INDEX encounters_live_channel ON encounters (guild_id, channel_id) WHERE status <> 'ended'",
        "CREATE INDEX encounters_guild ON encounters (guild_id, id)",
        """
        CREATE TABLE participants (
            encounter_id BIGINT  NOT NULL REFERENCES encounters (id),
            user_id      BIGINT  NOT NULL,
            role         TEXT    NOT NULL CHECK (role IN ('director', 'codirector', 'player')),
            side         TEXT    NOT NULL DEFAULT '',
            unit         TEXT    NOT NULL DEFAULT '',
            joined_at    TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, user_id, role, side, unit)
        )
        """,
        "CREATE UNIQUE INDEX participants_unit_holder ON participants (encounter_id, unit) WHERE unit <> ''",
        """
        CREATE TABLE events (
            encounter_id BIGINT  NOT NULL REFERENCES encounters (id),
            seq          INTEGER NOT NULL,
            type         TEXT    NOT NULL,
            payload      TEXT    NOT NULL,
            phase_no     INTEGER NOT NULL,
            created_at   TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, seq)
        )
        """,
        """
        CREATE TABLE orders (
            encounter_id BIGINT  NOT NULL,
            seq          INTEGER NOT NULL,
            phase_no     INTEGER NOT NULL,
            unit_id      TEXT    NOT NULL,
            user_id      BIGINT  NOT NULL,
            body         TEXT    NOT NULL,
            accepted_at  TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, seq),
            FOREIGN KEY (encounter_id, seq) REFERENCES events (encounter_id, seq)
        )
        """,
        "CREATE INDEX orders_phase_unit ON orders (encounter_id, phase_no, unit_id, seq)",
        """
        CREATE TABLE snapshots (
            encounter_id BIGINT  NOT NULL,
            seq          INTEGER NOT NULL,
            phase_no     INTEGER NOT NULL,
            opened_seq   INTEGER NOT NULL,
            parent_seq   INTEGER,
            state        TEXT    NOT NULL,
            created_at   TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, seq),
            FOREIGN KEY (encounter_id, seq) REFERENCES events (encounter_id, seq)
        )
        """,
        """
        CREATE TABLE guild_settings (
            guild_id                 BIGINT  PRIMARY KEY,
            language                 TEXT,
            director_role_id         BIGINT,
            default_deadline_minutes INTEGER,
            tutorial_shown           INTEGER NOT NULL DEFAULT 0,
            updated_at               TEXT    NOT NULL
        )
        """,
        """
        CREATE TABLE deadlines (
            encounter_id BIGINT  PRIMARY KEY REFERENCES encounters (id),
            phase_no     INTEGER NOT NULL,
            due_at       TEXT    NOT NULL
        )
        """,
        "CREATE INDEX deadlines_due ON deadlines (due_at)",
        """
        CREATE TABLE message_refs (
            encounter_id BIGINT  NOT NULL REFERENCES encounters (id),
            kind         TEXT    NOT NULL,
            key          TEXT    NOT NULL,
            channel_id   BIGINT  NOT NULL,
            message_id   BIGINT  NOT NULL,
            updated_at   TEXT    NOT NULL,
            PRIMARY KEY (encounter_id, kind, key)
        )
        """,
    ),
    # 2: a reminder time on each deadline (the players still missing get a DM then, once)
    (
        "ALTER TABLE deadlines ADD COLUMN remind_at TEXT",
        "CREATE INDEX deadlines_remind ON deadlines (remind_at)",
    ),
    # 3: how many encounters one member may keep open (NULL: the bot's default, 0: no limit) and whether only
    # members with Manage Server may import an encounter
    (
        "ALTER TABLE guild_settings ADD COLUMN max_open_encounters INTEGER",
        "ALTER TABLE guild_settings ADD COLUMN import_managers_only INTEGER NOT NULL DEFAULT 0",
    ),
    # 4: the server's idle reminder: hours a phase without a deadline may wait before the director is reminded
    ("ALTER TABLE guild_settings ADD COLUMN idle_reminder_hours INTEGER",),
    # 5: as SQLite's step 5 (a Discord snowflake needs BIGINT)
    ("ALTER TABLE encounters ADD COLUMN announced_id BIGINT NOT NULL DEFAULT 0",),
    # 6: as SQLite's step 6
    (
        "ALTER TABLE guild_settings ADD COLUMN palette TEXT",
        """
        CREATE TABLE user_settings (
            user_id    BIGINT  PRIMARY KEY,
            palette    TEXT,
            updated_at TEXT    NOT NULL
        )
        """,
    ),
    # 7: a DM click waiting, for at most a second, to be claimed by the process running its encounter's shard
    # (bot/handoff.py). Unlogged: a row outlives its click's 3-second window only when its sender died, and a
    # database crash empties the table, which loses nothing a player would not give again
    (
        """
        CREATE UNLOGGED TABLE handoffs (
            id         BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            shard      INTEGER     NOT NULL,
            payload    TEXT        NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )
        """,
    ),
    # 8: as SQLite's step 8
    (
        """
        CREATE TABLE dm_channels (
            user_id    BIGINT  PRIMARY KEY,
            channel_id BIGINT  NOT NULL
        )
        """,
    ),
)

SCHEMA_VERSION: Final = len(MIGRATIONS)


async def current_version(conn: aiosqlite.Connection) -> int:
    await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    async with conn.execute("SELECT version FROM schema_version") as cursor:
        row = await cursor.fetchone()
    return 0 if row is None else int(row[0])


async def migrate(conn: aiosqlite.Connection, migrations: tuple[tuple[str, ...], ...] = MIGRATIONS) -> int:
    """Apply the missing steps, each in its own ``BEGIN IMMEDIATE`` transaction (safe when several processes
    open the same file at once: the version is read again under the write lock). Returns the final version."""
    target = len(migrations)
    while True:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            version = await current_version(conn)
            if version > target:
                raise StorageError(
                    f"the database has schema version {version}, newer than this bot understands ({target}); "
                    "upgrade the bot"
                )
            if version == target:
                await conn.execute("COMMIT")
                return version
            for statement in migrations[version]:
                await conn.execute(statement)
            if version == 0:
                await conn.execute("INSERT INTO schema_version (version) VALUES (1)")
            else:
                await conn.execute("UPDATE schema_version SET version = ?", (version + 1,))
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
