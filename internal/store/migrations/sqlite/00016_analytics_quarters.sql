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
-- - visitor_messages: visitor messages with a topic (non-preview chats,
--   messages to operators too); questions: those put to the bot
--   (reply_answered set); answered: the ones it answered;
-- - replies: completed replies; ratings_up/down: their ratings;
--   reply_credits: their credits; all by the message's time.
CREATE TABLE analytics_quarters (
    bot_id           INTEGER NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    quarter          INTEGER NOT NULL,
    conversations    INTEGER NOT NULL DEFAULT 0,
    handoffs         INTEGER NOT NULL DEFAULT 0,
    visitor_messages INTEGER NOT NULL DEFAULT 0,
    questions        INTEGER NOT NULL DEFAULT 0,
    answered         INTEGER NOT NULL DEFAULT 0,
    ratings_up       INTEGER NOT NULL DEFAULT 0,
    ratings_down     INTEGER NOT NULL DEFAULT 0,
    reply_credits    INTEGER NOT NULL DEFAULT 0,
    replies          INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bot_id, quarter)
);

INSERT INTO analytics_quarters (bot_id, quarter, conversations, handoffs, visitor_messages, questions, answered,
    ratings_up, ratings_down, reply_credits, replies)
SELECT bot_id, q, SUM(c), SUM(h), SUM(v), SUM(qs), SUM(a), SUM(u), SUM(d), SUM(cr), SUM(r) FROM (
    SELECT m.bot_id, CAST(strftime('%s', m.created_at) AS INTEGER) / 900 AS q, 0 AS c, 0 AS h,
        CASE WHEN m.role = 'user' AND m.topic IS NOT NULL THEN 1 ELSE 0 END AS v,
        CASE WHEN m.role = 'user' AND m.topic IS NOT NULL AND m.reply_answered IS NOT NULL THEN 1 ELSE 0 END AS qs,
        CASE WHEN m.role = 'user' AND m.topic IS NOT NULL AND m.reply_answered = TRUE THEN 1 ELSE 0 END AS a,
        CASE WHEN m.role = 'assistant' AND m.status = 'completed' AND m.rating = 1 THEN 1 ELSE 0 END AS u,
        CASE WHEN m.role = 'assistant' AND m.status = 'completed' AND m.rating = -1 THEN 1 ELSE 0 END AS d,
        CASE WHEN m.role = 'assistant' AND m.status = 'completed' THEN m.credits ELSE 0 END AS cr,
        CASE WHEN m.role = 'assistant' AND m.status = 'completed' THEN 1 ELSE 0 END AS r
    FROM chat_messages m
    UNION ALL
    SELECT s.bot_id, CAST(strftime('%s', s.created_at) AS INTEGER) / 900, 1, CASE WHEN s.handoff_requested_at IS NOT NULL THEN 1 ELSE 0 END, 0, 0, 0, 0, 0, 0, 0
    FROM chat_sessions s WHERE s.preview = FALSE AND s.visitor_messages > 0
) t GROUP BY bot_id, q;

-- The ratings summary's lowest-rated answers, newest first.
CREATE INDEX chat_messages_rated_down ON chat_messages (bot_id, created_at) WHERE rating = -1;

-- +goose Down
DROP INDEX chat_messages_rated_down;
DROP TABLE analytics_quarters;
