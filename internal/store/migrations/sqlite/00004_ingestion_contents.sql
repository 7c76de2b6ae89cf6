-- +goose Up
-- An uploaded file's bytes live apart from its progress row: SQLite stores
-- a row's columns in order and rewrites the whole row on UPDATE, so a
-- status read or a progress update of a row with a 500 KB blob in the
-- middle walked and rewrote its overflow pages every time.
CREATE TABLE ingestion_file_contents (
    file_id INTEGER PRIMARY KEY REFERENCES ingestion_files(id) ON DELETE CASCADE,
    content BLOB NOT NULL
);
INSERT INTO ingestion_file_contents (file_id, content)
    SELECT id, content FROM ingestion_files WHERE content IS NOT NULL;
ALTER TABLE ingestion_files DROP COLUMN content;

-- +goose Down
ALTER TABLE ingestion_files ADD COLUMN content BLOB;
UPDATE ingestion_files SET content = (SELECT c.content FROM ingestion_file_contents c WHERE c.file_id = ingestion_files.id);
DROP TABLE ingestion_file_contents;
