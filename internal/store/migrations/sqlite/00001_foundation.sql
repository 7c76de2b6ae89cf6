-- +goose Up
CREATE TABLE workspaces (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    email                   TEXT NOT NULL UNIQUE,
    name                    TEXT NOT NULL DEFAULT '',
    password_hash           TEXT NOT NULL,
    email_verified_at       DATETIME,
    onboarding_completed_at DATETIME,
    billing_country         TEXT,
    code_lock_failures      INTEGER NOT NULL DEFAULT 0,
    bot_count               INTEGER NOT NULL DEFAULT 0,
    created_at              DATETIME NOT NULL,
    updated_at              DATETIME NOT NULL
);

-- One live workspace key per workspace. key_hash (SHA-256, hex) is the
-- lookup; key_ciphertext lets the owner read the key again.
CREATE TABLE workspace_keys (
    workspace_id   INTEGER PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
    key_hash       TEXT NOT NULL UNIQUE,
    key_ciphertext TEXT NOT NULL,
    key_hint       TEXT NOT NULL,
    created_at     DATETIME NOT NULL
);

-- One live one-time code per workspace and purpose; a new code replaces it.
CREATE TABLE one_time_codes (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    purpose      TEXT NOT NULL,
    code_hash    TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    expires_at   DATETIME NOT NULL,
    created_at   DATETIME NOT NULL,
    UNIQUE (workspace_id, purpose)
);

-- Issued codes and failed guesses, for the per-account budgets.
CREATE TABLE code_events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    purpose      TEXT NOT NULL,
    kind         TEXT NOT NULL,
    created_at   DATETIME NOT NULL
);
CREATE INDEX code_events_lookup ON code_events (workspace_id, kind, created_at);

CREATE TABLE bots (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_key      TEXT NOT NULL UNIQUE,
    name         TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);
CREATE INDEX bots_workspace ON bots (workspace_id);

-- bot_count is kept by the database in the transaction that adds or
-- removes a bot, so reading it (every GET /auth/me, every "may this
-- workspace create a bot?") costs nothing and can never drift.
-- +goose StatementBegin
CREATE TRIGGER bots_count_insert AFTER INSERT ON bots BEGIN
    UPDATE workspaces SET bot_count = bot_count + 1 WHERE id = NEW.workspace_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER bots_count_delete AFTER DELETE ON bots BEGIN
    UPDATE workspaces SET bot_count = bot_count - 1 WHERE id = OLD.workspace_id;
END;
-- +goose StatementEnd

CREATE TABLE jobs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    kind             TEXT NOT NULL,
    workspace_id     INTEGER REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id           INTEGER REFERENCES bots(id) ON DELETE CASCADE,
    payload          TEXT NOT NULL DEFAULT '{}',
    status           TEXT NOT NULL,
    priority         INTEGER NOT NULL DEFAULT 0,
    attempts         INTEGER NOT NULL DEFAULT 0,
    max_attempts     INTEGER NOT NULL,
    run_at           DATETIME NOT NULL,
    unique_key       TEXT,
    lease_token      TEXT,
    lease_expires_at DATETIME,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    last_error       TEXT,
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL,
    finished_at      DATETIME
);
CREATE INDEX jobs_ready ON jobs (status, run_at, priority);
CREATE INDEX jobs_lease ON jobs (status, lease_expires_at);
CREATE INDEX jobs_workspace ON jobs (workspace_id);
CREATE INDEX jobs_bot ON jobs (bot_id);
CREATE UNIQUE INDEX jobs_unique_active ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND status = 'queued';

-- The event outbox: written in the same transaction as the change that
-- caused the event; webhook delivery reads it.
CREATE TABLE events (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id     TEXT NOT NULL UNIQUE,
    workspace_id  INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id        INTEGER REFERENCES bots(id) ON DELETE CASCADE,
    type          TEXT NOT NULL,
    payload       TEXT NOT NULL,
    created_at    DATETIME NOT NULL,
    dispatched_at DATETIME
);
CREATE INDEX events_pending ON events (dispatched_at, id);
CREATE INDEX events_workspace ON events (workspace_id, created_at);
CREATE INDEX events_bot ON events (bot_id);

-- +goose Down
DROP TABLE events;
DROP TABLE jobs;
DROP TABLE bots;
DROP TABLE code_events;
DROP TABLE one_time_codes;
DROP TABLE workspace_keys;
DROP TABLE workspaces;
