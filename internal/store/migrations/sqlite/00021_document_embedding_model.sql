-- +goose Up
-- The embeddings model a document's passages were embedded with ('' for
-- none): only vectors of the configured model are searched, and a document
-- indexed under another model (or none) is indexed again when its content
-- comes back unchanged.
ALTER TABLE documents ADD COLUMN embedding_model TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE documents DROP COLUMN embedding_model;
