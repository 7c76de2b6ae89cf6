-- +goose Up
-- A lead is what we know of one conversation's visitor: what they typed
-- into a lead form, what the widget observed, a booked meeting, and the
-- qualification computed from all of it. One row per session, created the
-- first time any of that exists (or the session is first scored).
CREATE TABLE leads (
    session_id        INTEGER PRIMARY KEY REFERENCES chat_sessions(id) ON DELETE CASCADE,
    workspace_id      INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id            INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    name              TEXT,
    email             TEXT,
    phone             TEXT,
    company           TEXT,
    fields            TEXT NOT NULL DEFAULT '{}',
    capture_source    TEXT,
    captured_at       DATETIME,
    -- none | pending | valid | invalid | unknown
    email_status      TEXT NOT NULL DEFAULT 'none',
    email_verdict     TEXT,
    email_reason      TEXT,
    email_suggestion  TEXT,
    email_checked_at  DATETIME,
    signals           TEXT NOT NULL DEFAULT '{}',
    meeting           TEXT,
    meeting_booked_at DATETIME,
    score             INTEGER NOT NULL DEFAULT 0,
    tier              TEXT NOT NULL DEFAULT 'unqualified',
    breakdown         TEXT NOT NULL DEFAULT '{}',
    scorer            TEXT NOT NULL DEFAULT '',
    scored_messages   INTEGER NOT NULL DEFAULT -1,
    scored_at         DATETIME,
    created_at        DATETIME NOT NULL,
    updated_at        DATETIME NOT NULL
);
CREATE INDEX leads_workspace ON leads (workspace_id, updated_at);
-- The export pages by session id within a workspace.
CREATE INDEX leads_workspace_session ON leads (workspace_id, session_id);
CREATE INDEX leads_bot ON leads (bot_id, updated_at);
CREATE INDEX leads_tier ON leads (workspace_id, tier, score);

-- The rescoring sweep finds conversations that moved since it last looked.
CREATE INDEX chat_sessions_activity ON chat_sessions (last_message_at);

-- Every tier a lead moved to, oldest first.
CREATE TABLE lead_tier_changes (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id   INTEGER NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id       INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    from_tier    TEXT,
    to_tier      TEXT NOT NULL,
    score        INTEGER NOT NULL,
    scorer       TEXT NOT NULL,
    created_at   DATETIME NOT NULL
);
CREATE INDEX lead_tier_changes_session ON lead_tier_changes (session_id, id);

-- Follow-up e-mails sent to leads. content_hash de-duplicates a repeated
-- send of the same message within a short window.
CREATE TABLE lead_follow_ups (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id    TEXT NOT NULL UNIQUE,
    session_id   INTEGER NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id       INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    content_hash TEXT NOT NULL,
    to_email     TEXT NOT NULL,
    reply_to     TEXT,
    subject      TEXT NOT NULL,
    credits      INTEGER NOT NULL,
    mail_job_id  INTEGER,
    created_at   DATETIME NOT NULL
);
CREATE INDEX lead_follow_ups_session ON lead_follow_ups (session_id, content_hash, created_at);

-- +goose Down
DROP TABLE lead_follow_ups;
DROP TABLE lead_tier_changes;
DROP INDEX chat_sessions_activity;
DROP TABLE leads;
