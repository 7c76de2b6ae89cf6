-- +goose Up
-- A webhook endpoint belongs to one bot. The signing secret is sealed with
-- the server key; during a rotation the previous secret keeps signing until
-- prev_secret_until.
CREATE TABLE webhooks (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id          TEXT NOT NULL UNIQUE,
    workspace_id       INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id             INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    url                TEXT NOT NULL,
    events             TEXT NOT NULL DEFAULT '[]',
    description        TEXT NOT NULL DEFAULT '',
    active             BOOLEAN NOT NULL DEFAULT TRUE,
    disabled_reason    TEXT,
    secret_sealed      TEXT NOT NULL,
    secret_hint        TEXT NOT NULL,
    prev_secret_sealed TEXT,
    prev_secret_until  DATETIME,
    failing_since      DATETIME,
    created_at         DATETIME NOT NULL,
    updated_at         DATETIME NOT NULL
);
CREATE INDEX webhooks_bot ON webhooks (bot_id, id);
CREATE INDEX webhooks_workspace ON webhooks (workspace_id);

-- One event for one endpoint: the unit that is signed, retried and
-- replayed. public_id is the webhook-id header, the same on every attempt.
CREATE TABLE webhook_messages (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id        TEXT NOT NULL UNIQUE,
    webhook_id       INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id         INTEGER,
    event_type       TEXT NOT NULL,
    payload          TEXT NOT NULL,
    -- pending | succeeded | failed
    status           TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  DATETIME,
    lease_token      TEXT,
    lease_expires_at DATETIME,
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL
);
CREATE UNIQUE INDEX webhook_messages_event ON webhook_messages (webhook_id, event_id);
CREATE INDEX webhook_messages_due ON webhook_messages (status, next_attempt_at);
CREATE INDEX webhook_messages_webhook ON webhook_messages (webhook_id, status, next_attempt_at);

-- Every attempt, as the delivery log shows it.
CREATE TABLE webhook_attempts (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id    INTEGER NOT NULL REFERENCES webhook_messages(id) ON DELETE CASCADE,
    webhook_id    INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    attempt       INTEGER NOT NULL,
    succeeded     BOOLEAN NOT NULL,
    status_code   INTEGER,
    duration_ms   INTEGER NOT NULL,
    response_body TEXT NOT NULL DEFAULT '',
    error         TEXT,
    next_retry_at DATETIME,
    created_at    DATETIME NOT NULL
);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, id);
CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id, id);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_messages;
DROP TABLE webhooks;
