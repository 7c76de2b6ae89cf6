-- +goose Up
-- A document that lists rather than explains (most of its text is link
-- text, as an index or a sitemap, or code, as a source listing): the
-- second stage of retrieval weighs its passages down as it does hubs.
ALTER TABLE documents ADD COLUMN listing BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE documents DROP COLUMN listing;
