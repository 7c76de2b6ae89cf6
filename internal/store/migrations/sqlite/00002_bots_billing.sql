-- +goose Up
-- Plans, entitlements and credits: the plan is data (internal/billing);
-- the workspace row holds which plan applies and its status.
ALTER TABLE workspaces ADD COLUMN plan TEXT NOT NULL DEFAULT 'trial';
ALTER TABLE workspaces ADD COLUMN plan_status TEXT NOT NULL DEFAULT 'trialing';
ALTER TABLE workspaces ADD COLUMN trial_ends_at DATETIME;
ALTER TABLE workspaces ADD COLUMN plan_period_end DATETIME;
ALTER TABLE workspaces ADD COLUMN credit_balance INTEGER NOT NULL DEFAULT 0 CHECK (credit_balance >= 0);

-- Append-only: every change of a workspace's balance is one row, written in
-- the transaction that changes workspaces.credit_balance. idempotency_key
-- makes a debit (a reply, a follow-up) or a grant (a month) happen once.
CREATE TABLE credit_ledger (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id    INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    delta           INTEGER NOT NULL,
    balance_after   INTEGER NOT NULL CHECK (balance_after >= 0),
    kind            TEXT NOT NULL,
    reason          TEXT NOT NULL DEFAULT '',
    idempotency_key TEXT NOT NULL,
    created_at      DATETIME NOT NULL,
    UNIQUE (workspace_id, idempotency_key)
);
CREATE INDEX credit_ledger_history ON credit_ledger (workspace_id, id);
CREATE INDEX credit_ledger_period ON credit_ledger (workspace_id, kind, created_at);

-- Subscriptions with the payment provider: a workspace's plan, or one bot's
-- own subscription (bot_id set once the bot exists; bot_request holds the
-- bot to create when a checkout for a new bot is paid).
CREATE TABLE subscriptions (
    id                       INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id             INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    purpose                  TEXT NOT NULL,
    bot_id                   INTEGER,
    bot_request              TEXT NOT NULL DEFAULT '{}',
    provider                 TEXT NOT NULL,
    provider_subscription_id TEXT NOT NULL,
    provider_plan_id         TEXT NOT NULL DEFAULT '',
    plan                     TEXT NOT NULL,
    currency                 TEXT NOT NULL,
    amount_minor             INTEGER NOT NULL,
    status                   TEXT NOT NULL,
    current_period_start     DATETIME,
    current_period_end       DATETIME,
    cancelled_at             DATETIME,
    created_at               DATETIME NOT NULL,
    updated_at               DATETIME NOT NULL,
    UNIQUE (provider, provider_subscription_id)
);
CREATE INDEX subscriptions_workspace ON subscriptions (workspace_id, status);

CREATE TABLE invoices (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id        INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    subscription_id     INTEGER REFERENCES subscriptions(id) ON DELETE SET NULL,
    provider            TEXT NOT NULL,
    provider_invoice_id TEXT NOT NULL,
    status              TEXT NOT NULL,
    currency            TEXT NOT NULL,
    amount_minor        INTEGER NOT NULL,
    pdf_url             TEXT NOT NULL DEFAULT '',
    issued_at           DATETIME NOT NULL,
    paid_at             DATETIME,
    UNIQUE (provider, provider_invoice_id)
);
CREATE INDEX invoices_workspace ON invoices (workspace_id, issued_at);

-- Provider webhook events already processed (replays change nothing).
CREATE TABLE payment_events (
    provider    TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    received_at DATETIME NOT NULL,
    PRIMARY KEY (provider, event_id)
);

-- Bot settings. JSON columns hold field groups that are read and written
-- as a whole (appearance and branding, copy, live chat, qualification).
ALTER TABLE bots ADD COLUMN greeting TEXT NOT NULL DEFAULT '';
ALTER TABLE bots ADD COLUMN prompt TEXT NOT NULL DEFAULT '';
ALTER TABLE bots ADD COLUMN tone_preset TEXT NOT NULL DEFAULT 'professional';
ALTER TABLE bots ADD COLUMN brand_tone TEXT NOT NULL DEFAULT '';
ALTER TABLE bots ADD COLUMN brand_tone_locked BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE bots ADD COLUMN appearance TEXT NOT NULL DEFAULT '{}';
ALTER TABLE bots ADD COLUMN copy TEXT NOT NULL DEFAULT '{}';
ALTER TABLE bots ADD COLUMN live_chat TEXT NOT NULL DEFAULT '{}';
ALTER TABLE bots ADD COLUMN qualification TEXT NOT NULL DEFAULT '{}';
ALTER TABLE bots ADD COLUMN allowed_origins TEXT NOT NULL DEFAULT '[]';
ALTER TABLE bots ADD COLUMN notification_email TEXT;
ALTER TABLE bots ADD COLUMN reply_to_email TEXT;
ALTER TABLE bots ADD COLUMN offline_message TEXT NOT NULL DEFAULT '';
ALTER TABLE bots ADD COLUMN subscription_id INTEGER REFERENCES subscriptions(id) ON DELETE SET NULL;
ALTER TABLE bots ADD COLUMN recrawl_enabled BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE bots ADD COLUMN recrawl_next_at DATETIME;
ALTER TABLE bots ADD COLUMN recrawl_last_run TEXT;
ALTER TABLE bots ADD COLUMN demo_share_clicks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE bots ADD COLUMN last_demo_share_at DATETIME;

-- Live-chat operators: each bound to exactly one bot. An operator whose
-- e-mail is also a workspace owner's (linked_workspace_id) can act with
-- that workspace's key plus X-Workspace-Id.
CREATE TABLE operators (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id        INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id              INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    email               TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL DEFAULT '',
    password_hash       TEXT NOT NULL,
    key_hash            TEXT NOT NULL UNIQUE,
    key_ciphertext      TEXT NOT NULL,
    key_hint            TEXT NOT NULL,
    linked_workspace_id INTEGER REFERENCES workspaces(id) ON DELETE SET NULL,
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL
);
CREATE INDEX operators_workspace ON operators (workspace_id);
CREATE INDEX operators_bot ON operators (bot_id);
CREATE INDEX operators_linked ON operators (linked_workspace_id);

-- Super-admin impersonation sessions (issued from the command line) and the
-- kill switch that disables all of them at once.
CREATE TABLE impersonation_sessions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL UNIQUE,
    admin        TEXT NOT NULL,
    reason       TEXT NOT NULL DEFAULT '',
    created_at   DATETIME NOT NULL,
    expires_at   DATETIME NOT NULL,
    revoked_at   DATETIME
);
CREATE TABLE impersonation_audit (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id   INTEGER NOT NULL REFERENCES impersonation_sessions(id) ON DELETE CASCADE,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    action       TEXT NOT NULL,
    created_at   DATETIME NOT NULL
);
CREATE TABLE admin_settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at DATETIME NOT NULL
);

-- +goose Down
DROP TABLE admin_settings;
DROP TABLE impersonation_audit;
DROP TABLE impersonation_sessions;
DROP TABLE operators;
DROP TABLE payment_events;
DROP TABLE invoices;
DROP TABLE credit_ledger;
-- SQLite keeps the added columns; the new tables go.
DROP TABLE subscriptions;
