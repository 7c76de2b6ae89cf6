-- +goose Up
-- An identity at an external OpenID provider (issuer + subject) linked to a
-- workspace: sign-in through the provider finds the workspace by it first.
-- email is the provider's address at link time (for support, not lookup);
-- promo_code and referral_code are what a sign-up through the provider
-- carried.
CREATE TABLE workspace_identities (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id  INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    issuer        TEXT NOT NULL,
    subject       TEXT NOT NULL,
    email         TEXT NOT NULL DEFAULT '',
    promo_code    TEXT,
    referral_code TEXT,
    created_at    DATETIME NOT NULL,
    last_login_at DATETIME NOT NULL,
    UNIQUE (issuer, subject)
);
CREATE INDEX workspace_identities_workspace ON workspace_identities (workspace_id);

-- States of the provider sign-in already consumed by a callback, so a
-- replayed state cookie is refused until it would have expired anyway.
CREATE TABLE idp_used_states (
    state_hash TEXT PRIMARY KEY,
    expires_at DATETIME NOT NULL
);
CREATE INDEX idp_used_states_expiry ON idp_used_states (expires_at);

-- +goose Down
DROP TABLE idp_used_states;
DROP TABLE workspace_identities;
