-- +goose Up
-- An operator's e-mail is unique within its workspace only: a workspace
-- creating an operator must not learn whether the address is an operator
-- (or an owner) elsewhere. Sign-in tries each account of the address.
-- SQLite cannot drop a column's UNIQUE: the table is rebuilt (no table
-- references operators).
CREATE TABLE operators_new (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id        INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id              INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    email               TEXT NOT NULL,
    name                TEXT NOT NULL DEFAULT '',
    password_hash       TEXT NOT NULL,
    key_hash            TEXT NOT NULL UNIQUE,
    key_ciphertext      TEXT NOT NULL,
    key_hint            TEXT NOT NULL,
    linked_workspace_id INTEGER REFERENCES workspaces(id) ON DELETE SET NULL,
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL
);
INSERT INTO operators_new (id, workspace_id, bot_id, email, name, password_hash, key_hash, key_ciphertext, key_hint,
    linked_workspace_id, created_at, updated_at)
    SELECT id, workspace_id, bot_id, email, name, password_hash, key_hash, key_ciphertext, key_hint,
    linked_workspace_id, created_at, updated_at FROM operators;
DROP TABLE operators;
ALTER TABLE operators_new RENAME TO operators;
CREATE INDEX operators_workspace ON operators (workspace_id);
CREATE INDEX operators_bot ON operators (bot_id);
CREATE INDEX operators_linked ON operators (linked_workspace_id);
CREATE UNIQUE INDEX operators_workspace_email ON operators (workspace_id, email);
CREATE INDEX operators_email ON operators (email);

-- +goose Down
DROP INDEX operators_email;
DROP INDEX operators_workspace_email;
CREATE UNIQUE INDEX operators_email_unique ON operators (email);
