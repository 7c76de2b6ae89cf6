-- +goose Up
-- Seed questions (JSON list) are cached on the bot until forced again.
ALTER TABLE bots ADD COLUMN seed_questions TEXT;
ALTER TABLE bots ADD COLUMN seed_questions_at DATETIME;

-- A conversation of one visitor with one bot. public_id is the session_id
-- clients see: 128 random bits, unguessable.
CREATE TABLE chat_sessions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id       TEXT NOT NULL UNIQUE,
    workspace_id    INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id          INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    preview         BOOLEAN NOT NULL DEFAULT FALSE,
    origin          TEXT,
    messages        INTEGER NOT NULL DEFAULT 0,
    created_at      DATETIME NOT NULL,
    last_message_at DATETIME NOT NULL
);
CREATE INDEX chat_sessions_bot ON chat_sessions (bot_id, last_message_at);
CREATE INDEX chat_sessions_workspace ON chat_sessions (workspace_id);

-- Messages of a session. An assistant message is written 'pending' with
-- the credit it reserved, then becomes 'completed' (charged) or 'failed'
-- (refunded) in the transaction that settles the credit.
CREATE TABLE chat_messages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id    TEXT NOT NULL UNIQUE,
    session_id   INTEGER NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id       INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    role         TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'completed',
    text         TEXT NOT NULL DEFAULT '',
    sources      TEXT NOT NULL DEFAULT '[]',
    answered     BOOLEAN,
    credits      INTEGER NOT NULL DEFAULT 0,
    rating       INTEGER,
    answerer     TEXT NOT NULL DEFAULT '',
    error        TEXT,
    created_at   DATETIME NOT NULL,
    completed_at DATETIME
);
CREATE INDEX chat_messages_session ON chat_messages (session_id, id);
CREATE INDEX chat_messages_bot ON chat_messages (bot_id, created_at);
CREATE INDEX chat_messages_pending ON chat_messages (status, created_at) WHERE status = 'pending';

-- +goose Down
DROP TABLE chat_messages;
DROP TABLE chat_sessions;
ALTER TABLE bots DROP COLUMN seed_questions_at;
ALTER TABLE bots DROP COLUMN seed_questions;
