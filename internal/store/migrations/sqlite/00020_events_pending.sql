-- +goose Up
-- Only events still owed to an endpoint are in the dispatcher's index:
-- most events (those of bots with no active endpoint, outbox.Add) are
-- recorded already dispatched and need no entry in it.
DROP INDEX events_pending;
CREATE INDEX events_pending ON events (id) WHERE dispatched_at IS NULL;

-- +goose Down
DROP INDEX events_pending;
CREATE INDEX events_pending ON events (dispatched_at, id);
