-- +goose Up
-- The topic days leave the chat reply's write path: a job folds each
-- closed UTC day from the messages (analytics.fold), and the reports read
-- the days since the last fold from the messages themselves. until_day is
-- the first day not folded yet (NULL: none folded). analytics_topic_days
-- holds exactly the questions of the days before it; rows at or after it
-- (written by a replica of the previous release during a rolling upgrade)
-- are ignored and replaced when their day is folded. The writers kept the
-- table exact so far, so every day before today stays folded.
CREATE TABLE analytics_folds (
    name      TEXT PRIMARY KEY,
    until_day INTEGER
);
INSERT INTO analytics_folds (name, until_day)
SELECT 'topic_days', CASE WHEN EXISTS (SELECT 1 FROM analytics_topic_days) THEN CAST(strftime('%s', 'now') AS INTEGER) / 86400 END;
DELETE FROM analytics_topic_days WHERE day >= (SELECT until_day FROM analytics_folds WHERE name = 'topic_days');

-- +goose Down
-- The previous release's writers keep every day current: refill them all.
DROP TABLE analytics_folds;
DELETE FROM analytics_topic_days;
INSERT INTO analytics_topic_days (bot_id, day, topic, questions, answered, last_at, last_unanswered_at)
SELECT m.bot_id, CAST(strftime('%s', m.created_at) AS INTEGER) / 86400, m.topic, COUNT(*),
    SUM(CASE WHEN m.reply_answered = TRUE THEN 1 ELSE 0 END), MAX(m.created_at),
    MAX(CASE WHEN m.reply_answered = FALSE THEN m.created_at END)
FROM chat_messages m
WHERE m.role = 'user' AND m.topic IS NOT NULL AND m.reply_answered IS NOT NULL AND m.topic <> ''
GROUP BY m.bot_id, CAST(strftime('%s', m.created_at) AS INTEGER) / 86400, m.topic;
