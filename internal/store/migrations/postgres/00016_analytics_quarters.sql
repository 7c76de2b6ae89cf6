-- +goose Up
-- A bot's conversation figures per quarter hour (seconds since the epoch
-- / 900; a quarter hour divides every time zone's offset, so whole local
-- days are sums of quarters): what the dashboard and the ratings summary
-- read instead of every message of the window. Kept current by the
-- writers, in the transaction of the change (analytics.Record), and
-- equal at any time to what the messages and conversations say
-- (analytics.Rebuild, TestQuartersMatchTheirRows):
-- - conversations: non-preview sessions with a visitor message, by the
--   session's start; handoffs: those of them handed to a person;
--   engaged: those with two visitor messages or more;
-- - visitor_messages: visitor messages with a topic (non-preview chats,
--   messages to operators too); questions: those put to the bot
--   (reply_answered set); answered: the ones it answered;
-- - replies: completed replies; ratings_up/down: their ratings;
--   reply_credits: their credits; all by the message's time.
CREATE TABLE analytics_quarters (
    bot_id           BIGINT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    quarter          BIGINT NOT NULL,
    conversations    BIGINT NOT NULL DEFAULT 0,
    handoffs         BIGINT NOT NULL DEFAULT 0,
    visitor_messages BIGINT NOT NULL DEFAULT 0,
    questions        BIGINT NOT NULL DEFAULT 0,
    answered         BIGINT NOT NULL DEFAULT 0,
    ratings_up       BIGINT NOT NULL DEFAULT 0,
    ratings_down     BIGINT NOT NULL DEFAULT 0,
    reply_credits    BIGINT NOT NULL DEFAULT 0,
    replies          BIGINT NOT NULL DEFAULT 0,
    engaged          BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (bot_id, quarter)
);

INSERT INTO analytics_quarters (bot_id, quarter, conversations, handoffs, visitor_messages, questions, answered,
    ratings_up, ratings_down, reply_credits, replies, engaged)
SELECT bot_id, q, SUM(c), SUM(h), SUM(v), SUM(qs), SUM(a), SUM(u), SUM(d), SUM(cr), SUM(r), SUM(e) FROM (
    SELECT m.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900) AS BIGINT) AS q, 0 AS c, 0 AS h,
        CASE WHEN m.role = 'user' AND m.topic IS NOT NULL THEN 1 ELSE 0 END AS v,
        CASE WHEN m.role = 'user' AND m.topic IS NOT NULL AND m.reply_answered IS NOT NULL THEN 1 ELSE 0 END AS qs,
        CASE WHEN m.role = 'user' AND m.topic IS NOT NULL AND m.reply_answered = TRUE THEN 1 ELSE 0 END AS a,
        CASE WHEN m.role = 'assistant' AND m.status = 'completed' AND m.rating = 1 THEN 1 ELSE 0 END AS u,
        CASE WHEN m.role = 'assistant' AND m.status = 'completed' AND m.rating = -1 THEN 1 ELSE 0 END AS d,
        CASE WHEN m.role = 'assistant' AND m.status = 'completed' THEN m.credits ELSE 0 END AS cr,
        CASE WHEN m.role = 'assistant' AND m.status = 'completed' THEN 1 ELSE 0 END AS r,
        0 AS e
    FROM chat_messages m
    UNION ALL
    SELECT s.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM s.created_at) / 900) AS BIGINT), 1, CASE WHEN s.handoff_requested_at IS NOT NULL THEN 1 ELSE 0 END, 0, 0, 0, 0, 0, 0, 0,
        CASE WHEN s.visitor_messages >= 2 THEN 1 ELSE 0 END
    FROM chat_sessions s WHERE s.preview = FALSE AND s.visitor_messages > 0
) t GROUP BY bot_id, q;

-- The ratings summary's lowest-rated answers, newest first.
CREATE INDEX chat_messages_rated_down ON chat_messages (bot_id, created_at) WHERE rating = -1;

-- Questions put to the bot per bot, UTC day (seconds since the epoch /
-- 86400) and topic: the top and unanswered questions read the whole days
-- of a window from here and only its first and last partial days from
-- the messages. Kept by the writers of questions (analytics.RecordTopics)
-- like the quarters.
CREATE TABLE analytics_topic_days (
    bot_id             BIGINT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    day                BIGINT NOT NULL,
    topic              TEXT NOT NULL,
    questions          BIGINT NOT NULL DEFAULT 0,
    answered           BIGINT NOT NULL DEFAULT 0,
    last_at            TIMESTAMPTZ NOT NULL,
    last_unanswered_at TIMESTAMPTZ,
    PRIMARY KEY (bot_id, day, topic)
);
INSERT INTO analytics_topic_days (bot_id, day, topic, questions, answered, last_at, last_unanswered_at)
SELECT m.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM m.created_at) / 86400) AS BIGINT), m.topic, COUNT(*),
    SUM(CASE WHEN m.reply_answered = TRUE THEN 1 ELSE 0 END), MAX(m.created_at),
    MAX(CASE WHEN m.reply_answered = FALSE THEN m.created_at END)
FROM chat_messages m
WHERE m.role = 'user' AND m.topic IS NOT NULL AND m.reply_answered IS NOT NULL AND m.topic <> ''
GROUP BY m.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM m.created_at) / 86400) AS BIGINT), m.topic;

-- The page a conversation's visitor was first seen on (page_views'
-- position 0) and when, kept on the conversation by the signals' writer:
-- the journey summary reads entry pages, referrers and chat starts from
-- this index alone instead of joining every first page view to its
-- conversation.
ALTER TABLE chat_sessions ADD COLUMN entry_url TEXT;
ALTER TABLE chat_sessions ADD COLUMN entry_at TIMESTAMPTZ;
UPDATE chat_sessions SET
    entry_url = (SELECT p.url FROM page_views p WHERE p.session_id = chat_sessions.id AND p.position = 0),
    entry_at = (SELECT p.created_at FROM page_views p WHERE p.session_id = chat_sessions.id AND p.position = 0)
WHERE EXISTS (SELECT 1 FROM page_views p WHERE p.session_id = chat_sessions.id AND p.position = 0);
CREATE INDEX chat_sessions_bot_entry ON chat_sessions (bot_id, entry_at, entry_url, referrer_host, utm_source,
    visitor_messages) WHERE entry_at IS NOT NULL;

-- +goose Down
DROP TABLE analytics_topic_days;
DROP INDEX chat_sessions_bot_entry;
ALTER TABLE chat_sessions DROP COLUMN entry_at;
ALTER TABLE chat_sessions DROP COLUMN entry_url;
DROP INDEX chat_messages_rated_down;
DROP TABLE analytics_quarters;
