-- +goose Up
-- A bot's journey figures per UTC day (seconds since the epoch / 86400),
-- by kind and key: the journey summary reads the whole days of a window
-- from here and only its partial first and last days from page_views and
-- chat_sessions. Kept by the writers of signals, lead forms and meetings
-- (analytics.RecordJourney, in the transaction of the change, reading the
-- old state first), and equal at any time to what the rows say
-- (analytics.Rebuild, VerifyQuarters):
-- - kind 'page', key the page's URL, by the page view's created_at:
--   n page views, seconds their time on page, timed those with a time,
--   leads / meetings / converted those of sessions whose lead left a lead
--   form / booked a meeting / either;
-- - kind 'entry' (key the entry URL), 'referrer' (the referrer host, ''
--   for none) and 'utm' (the UTM source, when there is one), by the
--   conversation's entry_at: n conversations.
CREATE TABLE analytics_journey_days (
    bot_id    BIGINT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    day       BIGINT NOT NULL,
    kind      TEXT NOT NULL,
    key       TEXT NOT NULL,
    n         BIGINT NOT NULL DEFAULT 0,
    seconds   BIGINT NOT NULL DEFAULT 0,
    timed     BIGINT NOT NULL DEFAULT 0,
    leads     BIGINT NOT NULL DEFAULT 0,
    meetings  BIGINT NOT NULL DEFAULT 0,
    converted BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (bot_id, day, kind, key)
);

INSERT INTO analytics_journey_days (bot_id, day, kind, key, n, seconds, timed, leads, meetings, converted)
SELECT bot_id, day, kind, key, SUM(n), SUM(seconds), SUM(timed), SUM(leads), SUM(meetings), SUM(converted) FROM (
    SELECT p.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM p.created_at) / 86400) AS BIGINT) AS day, 'page' AS kind, p.url AS key, 1 AS n,
        p.seconds AS seconds, CASE WHEN p.seconds > 0 THEN 1 ELSE 0 END AS timed,
        CASE WHEN l.captured_at IS NOT NULL THEN 1 ELSE 0 END AS leads,
        CASE WHEN l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END AS meetings,
        CASE WHEN l.captured_at IS NOT NULL OR l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END AS converted
    FROM page_views p LEFT JOIN leads l ON l.session_id = p.session_id
    UNION ALL
    SELECT s.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM s.entry_at) / 86400) AS BIGINT), 'entry', COALESCE(s.entry_url, ''), 1, 0, 0, 0, 0, 0
    FROM chat_sessions s WHERE s.entry_at IS NOT NULL
    UNION ALL
    SELECT s.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM s.entry_at) / 86400) AS BIGINT), 'referrer', COALESCE(s.referrer_host, ''), 1, 0, 0, 0, 0, 0
    FROM chat_sessions s WHERE s.entry_at IS NOT NULL
    UNION ALL
    SELECT s.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM s.entry_at) / 86400) AS BIGINT), 'utm', s.utm_source, 1, 0, 0, 0, 0, 0
    FROM chat_sessions s WHERE s.entry_at IS NOT NULL AND s.utm_source IS NOT NULL AND s.utm_source <> ''
) t GROUP BY bot_id, day, kind, key;

-- Whether a converting session saw a page in the window: one seek per
-- lead instead of every page view of the session.
CREATE INDEX page_views_session_created ON page_views (session_id, created_at);

-- The leads of a window's conversations (dashboard, funnel) and the
-- converting sessions of the journey, read from the index alone: the
-- index on (bot, updated_at), widened.
DROP INDEX leads_bot;
CREATE INDEX leads_bot ON leads (bot_id, updated_at, session_id, tier, captured_at, meeting_booked_at, email);

-- The funnel's tier changes of a window, from the index alone.
DROP INDEX lead_tier_changes_bot;
CREATE INDEX lead_tier_changes_bot ON lead_tier_changes (bot_id, created_at, to_tier, session_id);

-- Lead forms and meetings per quarter hour, by the lead's captured_at and
-- meeting_booked_at (each set once), kept by their writers with the rest
-- of the quarter (analytics.Record): the dashboard reads them with the
-- conversations instead of every lead of the window.
ALTER TABLE analytics_quarters ADD COLUMN leads_captured BIGINT NOT NULL DEFAULT 0;
ALTER TABLE analytics_quarters ADD COLUMN meetings_booked BIGINT NOT NULL DEFAULT 0;
INSERT INTO analytics_quarters (bot_id, quarter, leads_captured, meetings_booked)
SELECT bot_id, q, SUM(lc), SUM(mb) FROM (
    SELECT l.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM l.captured_at) / 900) AS BIGINT) AS q, 1 AS lc, 0 AS mb FROM leads l WHERE l.captured_at IS NOT NULL
    UNION ALL
    SELECT l.bot_id, CAST(FLOOR(EXTRACT(EPOCH FROM l.meeting_booked_at) / 900) AS BIGINT), 0, 1 FROM leads l WHERE l.meeting_booked_at IS NOT NULL
) t WHERE TRUE GROUP BY bot_id, q
ON CONFLICT (bot_id, quarter) DO UPDATE SET leads_captured = excluded.leads_captured, meetings_booked = excluded.meetings_booked;

-- +goose Down
ALTER TABLE analytics_quarters DROP COLUMN meetings_booked;
ALTER TABLE analytics_quarters DROP COLUMN leads_captured;
DROP INDEX lead_tier_changes_bot;
CREATE INDEX lead_tier_changes_bot ON lead_tier_changes (bot_id, created_at);
DROP INDEX leads_bot;
CREATE INDEX leads_bot ON leads (bot_id, updated_at);
DROP INDEX page_views_session_created;
DROP TABLE analytics_journey_days;
