-- +goose Up
-- Live chat. A conversation's mode: bot (the answerer replies), waiting (a
-- hand-off asked for a person), human (one operator claimed it), closed
-- (resolved). outcome is what analytics reads: answered_by_bot, handed_off,
-- resolved or abandoned (a hand-off nobody claimed in time).
ALTER TABLE chat_sessions ADD COLUMN mode TEXT NOT NULL DEFAULT 'bot';
ALTER TABLE chat_sessions ADD COLUMN outcome TEXT NOT NULL DEFAULT 'answered_by_bot';
ALTER TABLE chat_sessions ADD COLUMN operator_id INTEGER REFERENCES operators(id) ON DELETE SET NULL;
ALTER TABLE chat_sessions ADD COLUMN visitor_name TEXT;
ALTER TABLE chat_sessions ADD COLUMN visitor_email TEXT;
ALTER TABLE chat_sessions ADD COLUMN handoff_requested_at DATETIME;
ALTER TABLE chat_sessions ADD COLUMN claimed_at DATETIME;
ALTER TABLE chat_sessions ADD COLUMN first_operator_reply_at DATETIME;
-- Seconds from the first hand-off request to the first operator message.
ALTER TABLE chat_sessions ADD COLUMN first_operator_reply_seconds INTEGER;
ALTER TABLE chat_sessions ADD COLUMN closed_at DATETIME;
-- The last message the operators have read (unread = visitor messages after it).
ALTER TABLE chat_sessions ADD COLUMN operator_read_message_id INTEGER NOT NULL DEFAULT 0;
CREATE INDEX chat_sessions_mode ON chat_sessions (bot_id, mode, last_message_at);

-- Every realtime event (messages, mode changes, typing) is a row: its id is
-- the SSE event id, a reconnect replays from here, and PostgreSQL NOTIFY
-- carries only the id.
CREATE TABLE livechat_events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id       INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    session_id   INTEGER REFERENCES chat_sessions(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    data         TEXT NOT NULL DEFAULT '{}',
    created_at   DATETIME NOT NULL
);
CREATE INDEX livechat_events_bot ON livechat_events (bot_id, id);
CREATE INDEX livechat_events_session ON livechat_events (session_id, id);

-- Operator presence: status set by PUT /operators/me/status; stream_seen_at
-- is refreshed while an event stream of the operator is open.
CREATE TABLE livechat_presence (
    operator_id    INTEGER PRIMARY KEY REFERENCES operators(id) ON DELETE CASCADE,
    status         TEXT,
    stream_seen_at DATETIME,
    updated_at     DATETIME NOT NULL
);

-- When a bot's notification address was last told that nobody was online.
CREATE TABLE livechat_notices (
    bot_id      INTEGER PRIMARY KEY REFERENCES bots(id) ON DELETE CASCADE,
    notified_at DATETIME NOT NULL
);

-- +goose Down
DROP TABLE livechat_notices;
DROP TABLE livechat_presence;
DROP TABLE livechat_events;
DROP INDEX chat_sessions_mode;
ALTER TABLE chat_sessions DROP COLUMN operator_read_message_id;
ALTER TABLE chat_sessions DROP COLUMN closed_at;
ALTER TABLE chat_sessions DROP COLUMN first_operator_reply_seconds;
ALTER TABLE chat_sessions DROP COLUMN first_operator_reply_at;
ALTER TABLE chat_sessions DROP COLUMN claimed_at;
ALTER TABLE chat_sessions DROP COLUMN handoff_requested_at;
ALTER TABLE chat_sessions DROP COLUMN visitor_email;
ALTER TABLE chat_sessions DROP COLUMN visitor_name;
ALTER TABLE chat_sessions DROP COLUMN operator_id;
ALTER TABLE chat_sessions DROP COLUMN outcome;
ALTER TABLE chat_sessions DROP COLUMN mode;
