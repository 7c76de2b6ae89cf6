-- +goose Up
-- knowledge_version changes whenever the bot's retrievable passages do, so
-- every replica can tell that its in-memory index is stale with one read.
ALTER TABLE bots ADD COLUMN knowledge_version INTEGER NOT NULL DEFAULT 0;

-- A document is a file or a crawled page. Its passages are written while it
-- is 'indexing' and become retrievable together when it turns 'ready' (one
-- short transaction that also retires the document it replaces).
CREATE TABLE documents (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id    INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id          INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    source          TEXT NOT NULL,
    url             TEXT,
    title           TEXT NOT NULL DEFAULT '',
    content_type    TEXT NOT NULL DEFAULT '',
    bytes           INTEGER NOT NULL DEFAULT 0,
    content_hash    TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL,
    passages        INTEGER NOT NULL DEFAULT 0,
    tokens          INTEGER NOT NULL DEFAULT 0,
    pages           INTEGER NOT NULL DEFAULT 0,
    credits         INTEGER NOT NULL DEFAULT 0,
    etag            TEXT,
    last_modified   TEXT,
    fetch_failures  INTEGER NOT NULL DEFAULT 0,
    last_fetched_at DATETIME,
    error           TEXT,
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL
);
CREATE UNIQUE INDEX documents_ready_name ON documents (bot_id, name) WHERE status = 'ready';
CREATE INDEX documents_bot ON documents (bot_id, status);
CREATE INDEX documents_workspace ON documents (workspace_id);

-- Passages carry their document's title, URL and heading path so an answer
-- can cite them, and their analysed terms so an index can be rebuilt
-- without re-analysing the text.
CREATE TABLE passages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id       INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    document_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL,
    title        TEXT NOT NULL DEFAULT '',
    url          TEXT,
    heading_path TEXT NOT NULL DEFAULT '',
    text         TEXT NOT NULL,
    tokens       INTEGER NOT NULL DEFAULT 0,
    terms        TEXT NOT NULL DEFAULT '',
    embedding    BLOB
);
CREATE INDEX passages_bot ON passages (bot_id, document_id);
CREATE INDEX passages_document ON passages (document_id);

-- An upload: its files wait here (durably, for any replica's worker) until
-- the ingestion job has processed them. public_id is the job_id clients see.
CREATE TABLE ingestions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id       TEXT NOT NULL UNIQUE,
    workspace_id    INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id          INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    job_id          INTEGER,
    status          TEXT NOT NULL,
    credits_charged INTEGER NOT NULL DEFAULT 0,
    error           TEXT,
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL,
    finished_at     DATETIME
);
CREATE INDEX ingestions_bot ON ingestions (bot_id);
CREATE TABLE ingestion_files (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    ingestion_id INTEGER NOT NULL REFERENCES ingestions(id) ON DELETE CASCADE,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id       INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL DEFAULT '',
    bytes        INTEGER NOT NULL,
    content      BLOB,
    status       TEXT NOT NULL,
    document_id  INTEGER,
    passages     INTEGER NOT NULL DEFAULT 0,
    credits      INTEGER NOT NULL DEFAULT 0,
    error        TEXT,
    updated_at   DATETIME NOT NULL
);
CREATE INDEX ingestion_files_ingestion ON ingestion_files (ingestion_id, ordinal);

-- Crawls of a bot's site (one running at a time per bot); recrawls too.
CREATE TABLE crawls (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id        TEXT NOT NULL UNIQUE,
    workspace_id     INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id           INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    kind             TEXT NOT NULL,
    root_url         TEXT NOT NULL,
    max_pages        INTEGER NOT NULL,
    status           TEXT NOT NULL,
    pages_found      INTEGER NOT NULL DEFAULT 0,
    pages_fetched    INTEGER NOT NULL DEFAULT 0,
    pages_indexed    INTEGER NOT NULL DEFAULT 0,
    pages_failed     INTEGER NOT NULL DEFAULT 0,
    pages_skipped    INTEGER NOT NULL DEFAULT 0,
    pages_changed    INTEGER NOT NULL DEFAULT 0,
    pages_removed    INTEGER NOT NULL DEFAULT 0,
    current_url      TEXT,
    credits_charged  INTEGER NOT NULL DEFAULT 0,
    error            TEXT,
    job_id           INTEGER,
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL,
    finished_at      DATETIME
);
CREATE INDEX crawls_bot ON crawls (bot_id, id);
CREATE UNIQUE INDEX crawls_one_running ON crawls (bot_id) WHERE status IN ('queued', 'running');

-- +goose Down
DROP TABLE crawls;
DROP TABLE ingestion_files;
DROP TABLE ingestions;
DROP TABLE passages;
DROP TABLE documents;
