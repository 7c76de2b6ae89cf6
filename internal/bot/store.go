package bot

import (
	"context"
	"time"

	"concierge/internal/billing"
	"concierge/internal/store"
)

const botColumns = `b.id, b.workspace_id, b.bot_key, b.name, b.greeting, b.prompt, b.tone_preset, b.brand_tone,
	b.brand_tone_locked, b.appearance, b.copy, b.live_chat, b.qualification, b.allowed_origins,
	b.notification_email, b.reply_to_email, b.offline_message, b.subscription_id, b.recrawl_enabled,
	b.recrawl_next_at, b.recrawl_last_run, b.demo_share_clicks, b.last_demo_share_at, b.created_at, b.updated_at`

// row is a bot with the status of its own subscription, if it has one.
type row struct {
	Bot
	SubscriptionStatus *string `db:"subscription_status"`
	SubscriptionRef    *string `db:"subscription_ref"`
}

const selectBots = `SELECT ` + botColumns + `, s.status AS subscription_status, s.provider_subscription_id AS subscription_ref
	FROM bots b LEFT JOIN subscriptions s ON s.id = b.subscription_id`

func botByID(ctx context.Context, q store.Q, id int64) (*row, error) {
	var r row
	if err := store.Get(ctx, q, &r, selectBots+` WHERE b.id = ?`, id); err != nil {
		return nil, err
	}
	return &r, nil
}

// keyRow is a bot with its subscription's status and its workspace's
// standing: everything a request authenticated by the bot's key needs to
// know about it, in one read.
type keyRow struct {
	row
	Workspace billing.StandingRow `db:"ws"`
}

// botsByKeys reads the bots of keys in one statement (IN list padded to a
// power of two), by key; keys without a bot are left out.
func botsByKeys(ctx context.Context, q store.Q, keys []string) (map[string]keyRow, error) {
	vals := make([]any, len(keys))
	for i, k := range keys {
		vals[i] = k
	}
	in, args := store.InList(vals)
	var rs []keyRow
	if err := store.Select(ctx, q, &rs, `SELECT `+botColumns+`, s.status AS subscription_status,
		s.provider_subscription_id AS subscription_ref, `+billing.StandingColumns+`
		FROM bots b JOIN workspaces w ON w.id = b.workspace_id LEFT JOIN subscriptions s ON s.id = b.subscription_id
		WHERE b.bot_key IN (`+in+`)`, args...); err != nil {
		return nil, err
	}
	out := make(map[string]keyRow, len(rs))
	for _, r := range rs {
		out[r.Key] = r
	}
	return out, nil
}

func botsOfWorkspace(ctx context.Context, q store.Q, workspaceID int64) ([]row, error) {
	var rs []row
	err := store.Select(ctx, q, &rs, selectBots+` WHERE b.workspace_id = ? ORDER BY b.id`, workspaceID)
	return rs, err
}

func insertBot(ctx context.Context, q store.Q, b *Bot) error {
	return store.Get(ctx, q, &b.ID, `INSERT INTO bots (workspace_id, bot_key, name, greeting, prompt, tone_preset,
		brand_tone, brand_tone_locked, appearance, copy, live_chat, qualification, allowed_origins,
		notification_email, reply_to_email, offline_message, subscription_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		b.WorkspaceID, b.Key, b.Name, b.Greeting, b.Prompt, b.TonePreset, b.BrandTone, b.BrandToneLocked,
		b.AppearanceJSON, b.CopyJSON, b.LiveChatJSON, b.QualificationJSON, b.OriginsJSON,
		b.NotificationEmail, b.ReplyToEmail, b.OfflineMessage, b.SubscriptionID, b.CreatedAt, b.UpdatedAt)
}

func saveSettings(ctx context.Context, q store.Q, b *Bot) error {
	_, err := store.Exec(ctx, q, `UPDATE bots SET name = ?, greeting = ?, prompt = ?, tone_preset = ?, brand_tone = ?,
		brand_tone_locked = ?, appearance = ?, copy = ?, live_chat = ?, qualification = ?, allowed_origins = ?,
		notification_email = ?, reply_to_email = ?, offline_message = ?, updated_at = ?
		WHERE id = ? AND workspace_id = ?`,
		b.Name, b.Greeting, b.Prompt, b.TonePreset, b.BrandTone, b.BrandToneLocked, b.AppearanceJSON, b.CopyJSON,
		b.LiveChatJSON, b.QualificationJSON, b.OriginsJSON, b.NotificationEmail, b.ReplyToEmail, b.OfflineMessage,
		b.UpdatedAt, b.ID, b.WorkspaceID)
	return err
}

func setRecrawl(ctx context.Context, q store.Q, workspaceID, botID int64, enabled bool, next *time.Time, now time.Time) error {
	_, err := store.Exec(ctx, q, `UPDATE bots SET recrawl_enabled = ?, recrawl_next_at = ?, updated_at = ?
		WHERE id = ? AND workspace_id = ?`, enabled, next, now, botID, workspaceID)
	return err
}
