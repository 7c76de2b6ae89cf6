-- +goose Up
-- An operator's e-mail is unique within its workspace only: a workspace
-- creating an operator must not learn whether the address is an operator
-- (or an owner) elsewhere. Sign-in tries each account of the address.
ALTER TABLE operators DROP CONSTRAINT operators_email_key;
CREATE UNIQUE INDEX operators_workspace_email ON operators (workspace_id, email);
CREATE INDEX operators_email ON operators (email);

-- +goose Down
DROP INDEX operators_email;
DROP INDEX operators_workspace_email;
ALTER TABLE operators ADD CONSTRAINT operators_email_key UNIQUE (email);
