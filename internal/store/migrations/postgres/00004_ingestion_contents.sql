-- +goose Up
-- An uploaded file's bytes live apart from its progress row (the same
-- layout as SQLite, where the blob in the middle of the row made every
-- status read and progress update walk and rewrite it).
CREATE TABLE ingestion_file_contents (
    file_id BIGINT PRIMARY KEY REFERENCES ingestion_files(id) ON DELETE CASCADE,
    content BYTEA NOT NULL
);
INSERT INTO ingestion_file_contents (file_id, content)
    SELECT id, content FROM ingestion_files WHERE content IS NOT NULL;
ALTER TABLE ingestion_files DROP COLUMN content;

-- +goose Down
ALTER TABLE ingestion_files ADD COLUMN content BYTEA;
UPDATE ingestion_files SET content = (SELECT c.content FROM ingestion_file_contents c WHERE c.file_id = ingestion_files.id);
DROP TABLE ingestion_file_contents;
