-- +goose Up
-- Analytics. A visitor message of a (non-preview) conversation carries its
-- topic: the question's content terms, stemmed, synonyms folded and sorted
-- (analytics.Topic), which groups paraphrases in SQL; reply_answered is
-- whether the bot's reply to it answered (NULL when no bot reply was asked
-- for: a message to an operator, an offline bot).
ALTER TABLE chat_messages ADD COLUMN topic TEXT;
ALTER TABLE chat_messages ADD COLUMN reply_answered BOOLEAN;

-- Visitor messages of the conversation (messages counts both sides):
-- "engaged" in the qualification funnel is two or more.
ALTER TABLE chat_sessions ADD COLUMN visitor_messages INTEGER NOT NULL DEFAULT 0;
-- The bot's replies that answered, and that said it did not know: the
-- resolution summary reads them without reading the messages.
ALTER TABLE chat_sessions ADD COLUMN answered_replies INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chat_sessions ADD COLUMN unanswered_replies INTEGER NOT NULL DEFAULT 0;

-- Conversations from before this migration: their counters from their
-- messages, and their visitor messages counted as messages (topic '': not
-- grouped as questions, whose topics are computed when they are written).
UPDATE chat_sessions SET
    visitor_messages = (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = chat_sessions.id AND m.role = 'user'),
    answered_replies = (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = chat_sessions.id
        AND m.role = 'assistant' AND m.status = 'completed' AND m.answered = TRUE),
    unanswered_replies = (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = chat_sessions.id
        AND m.role = 'assistant' AND m.status = 'completed' AND m.answered = FALSE);
UPDATE chat_messages SET topic = '' WHERE role = 'user'
    AND session_id IN (SELECT id FROM chat_sessions WHERE preview = FALSE);

-- Where the visitor came from (the first referrer reported), for the
-- journey summary.
ALTER TABLE chat_sessions ADD COLUMN referrer_host TEXT;
ALTER TABLE chat_sessions ADD COLUMN utm_source TEXT;
-- The reports read conversations of a window from this index alone.
CREATE INDEX chat_sessions_bot_created ON chat_sessions (bot_id, created_at, preview, visitor_messages,
    answered_replies, unanswered_replies, outcome, handoff_requested_at);
-- And messages (replacing the index on bot and time, of which this one
-- is a widening).
DROP INDEX chat_messages_bot;
CREATE INDEX chat_messages_bot ON chat_messages (bot_id, created_at, role, status, reply_answered, rating, credits, topic);

-- The pages a conversation's visitor was seen on, in order (position 0 is
-- the page the session started on), with the longest time reported.
CREATE TABLE page_views (
    session_id   INTEGER NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    url          TEXT NOT NULL,
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    bot_id       INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    seconds      INTEGER NOT NULL DEFAULT 0,
    created_at   DATETIME NOT NULL,
    PRIMARY KEY (session_id, url)
);
CREATE INDEX page_views_bot ON page_views (bot_id, created_at, position, url, seconds);

CREATE INDEX leads_bot_captured ON leads (bot_id, captured_at);
CREATE INDEX leads_bot_meeting ON leads (bot_id, meeting_booked_at);
CREATE INDEX lead_follow_ups_bot ON lead_follow_ups (bot_id, created_at);
CREATE INDEX lead_tier_changes_bot ON lead_tier_changes (bot_id, created_at);

-- An unanswered-question group the owner dismissed; a question of the
-- group asked after dismissed_at brings it back.
CREATE TABLE analytics_dismissals (
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    group_id     TEXT NOT NULL,
    dismissed_at DATETIME NOT NULL,
    PRIMARY KEY (workspace_id, group_id)
);

-- +goose Down
DROP TABLE analytics_dismissals;
DROP INDEX lead_tier_changes_bot;
DROP INDEX lead_follow_ups_bot;
DROP INDEX leads_bot_meeting;
DROP INDEX leads_bot_captured;
DROP TABLE page_views;
DROP INDEX chat_sessions_bot_created;
DROP INDEX chat_messages_bot;
CREATE INDEX chat_messages_bot ON chat_messages (bot_id, created_at);
ALTER TABLE chat_sessions DROP COLUMN utm_source;
ALTER TABLE chat_sessions DROP COLUMN referrer_host;
ALTER TABLE chat_sessions DROP COLUMN unanswered_replies;
ALTER TABLE chat_sessions DROP COLUMN answered_replies;
ALTER TABLE chat_sessions DROP COLUMN visitor_messages;
ALTER TABLE chat_messages DROP COLUMN reply_answered;
ALTER TABLE chat_messages DROP COLUMN topic;
