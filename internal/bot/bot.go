// Package bot owns chatbots: their settings (name, greeting, tone,
// appearance and branding, prompt, copy, live chat, qualification, widget
// origins, notification addresses, offline message), the presets offered for
// tone and qualification frameworks, the public bot key, and auto-recrawl
// state. Whether a bot is offline is derived from billing, never stored.
package bot

import (
	"encoding/json"
	"time"
)

// Bot is one chatbot as stored.
type Bot struct {
	ID                int64      `db:"id"`
	WorkspaceID       int64      `db:"workspace_id"`
	Key               string     `db:"bot_key"`
	Name              string     `db:"name"`
	Greeting          string     `db:"greeting"`
	Prompt            string     `db:"prompt"`
	TonePreset        string     `db:"tone_preset"`
	BrandTone         string     `db:"brand_tone"`
	BrandToneLocked   bool       `db:"brand_tone_locked"`
	AppearanceJSON    string     `db:"appearance"`
	CopyJSON          string     `db:"copy"`
	LiveChatJSON      string     `db:"live_chat"`
	QualificationJSON string     `db:"qualification"`
	OriginsJSON       string     `db:"allowed_origins"`
	NotificationEmail *string    `db:"notification_email"`
	ReplyToEmail      *string    `db:"reply_to_email"`
	OfflineMessage    string     `db:"offline_message"`
	SubscriptionID    *int64     `db:"subscription_id"`
	RecrawlEnabled    bool       `db:"recrawl_enabled"`
	RecrawlNextAt     *time.Time `db:"recrawl_next_at"`
	RecrawlLastRun    *string    `db:"recrawl_last_run"`
	DemoShareClicks   int        `db:"demo_share_clicks"`
	LastDemoShareAt   *time.Time `db:"last_demo_share_at"`
	CreatedAt         time.Time  `db:"created_at"`
	UpdatedAt         time.Time  `db:"updated_at"`
}

// Appearance is how the widget looks, branding included.
type Appearance struct {
	PrimaryColor string `json:"primary_color,omitempty" pattern:"^#[0-9A-Fa-f]{6}$" doc:"Main colour, #RRGGBB."`
	AccentColor  string `json:"accent_color,omitempty" pattern:"^#[0-9A-Fa-f]{6}$"`
	Theme        string `json:"theme,omitempty" enum:"light,dark,auto"`
	Position     string `json:"position,omitempty" enum:"bottom-right,bottom-left"`
	AvatarURL    string `json:"avatar_url,omitempty" maxLength:"2048" doc:"https:// image URL."`
	LogoURL      string `json:"logo_url,omitempty" maxLength:"2048" doc:"https:// image URL."`
	LauncherIcon string `json:"launcher_icon,omitempty" enum:"chat,help,spark,none"`
	FontFamily   string `json:"font_family,omitempty" maxLength:"100" pattern:"^[A-Za-z0-9 ,'-]*$"`
	// ShowBranding false hides "Powered by Concierge" (feature custom_branding).
	ShowBranding *bool `json:"show_branding,omitempty"`
}

// Copy is the widget's fixed texts.
type Copy struct {
	Title             string `json:"title,omitempty" maxLength:"100"`
	Subtitle          string `json:"subtitle,omitempty" maxLength:"200"`
	InputPlaceholder  string `json:"input_placeholder,omitempty" maxLength:"100"`
	LauncherLabel     string `json:"launcher_label,omitempty" maxLength:"50"`
	PreChatHeading    string `json:"pre_chat_heading,omitempty" maxLength:"200"`
	HandoffPrompt     string `json:"handoff_prompt,omitempty" maxLength:"300"`
	ContactFormPrompt string `json:"contact_form_prompt,omitempty" maxLength:"300"`
	ThankYouMessage   string `json:"thank_you_message,omitempty" maxLength:"300"`
}

// LiveChat configures hand-off to human operators.
type LiveChat struct {
	Enabled         bool     `json:"enabled"`
	HandoffKeywords []string `json:"handoff_keywords,omitempty" maxItems:"20" doc:"Visitor phrases that offer a human."`
	AwayMessage     string   `json:"away_message,omitempty" maxLength:"500"`
	Timezone        string   `json:"timezone,omitempty" maxLength:"64" doc:"IANA zone of the business hours, e.g. Asia/Kolkata."`
	BusinessHours   []Hours  `json:"business_hours,omitempty" maxItems:"14"`
	// OfferContactForm shows a contact form when nobody is available.
	OfferContactForm bool `json:"offer_contact_form"`
	// HandoffTimeoutSeconds: a hand-off nobody claims within this time goes
	// back to the bot. 0 when read back from storage means the default.
	HandoffTimeoutSeconds int `json:"handoff_timeout_seconds,omitempty" minimum:"10" maximum:"3600" doc:"Seconds a hand-off waits for an operator before the conversation goes back to the bot; default 120."`
	// PreChatForm asks the visitor for a name and e-mail before the first
	// message (the widget's pre-chat form).
	PreChatForm bool `json:"pre_chat_form,omitempty" doc:"The widget asks for name and e-mail before the first message."`
}

// DefaultHandoffTimeout is the hand-off timeout of a bot that sets none.
const DefaultHandoffTimeout = 120 * time.Second

// HandoffTimeout is how long a hand-off waits for an operator.
func (l LiveChat) HandoffTimeout() time.Duration {
	if l.HandoffTimeoutSeconds <= 0 {
		return DefaultHandoffTimeout
	}
	return time.Duration(l.HandoffTimeoutSeconds) * time.Second
}

// Hours is one opening interval.
type Hours struct {
	Day   string `json:"day" enum:"mon,tue,wed,thu,fri,sat,sun"`
	Open  string `json:"open" pattern:"^([01][0-9]|2[0-3]):[0-5][0-9]$"`
	Close string `json:"close" pattern:"^([01][0-9]|2[0-3]):[0-5][0-9]$"`
}

// Qualification is how conversations are scored into lead tiers.
type Qualification struct {
	Framework string `json:"framework" doc:"Preset key: bant, champ, meddic or custom."`
	// Weights maps each dimension of the framework to its weight; weights
	// are non-negative and are normalised when scoring.
	Weights map[string]int `json:"weights,omitempty"`
	// Dimensions are the custom framework's dimensions (framework custom).
	Dimensions []Dimension `json:"dimensions,omitempty" maxItems:"10"`
	// Thresholds are the minimum scores of the sql and mql tiers.
	Thresholds *Thresholds `json:"thresholds,omitempty"`
}

// Dimension is one dimension of a custom framework.
type Dimension struct {
	Key   string `json:"key" pattern:"^[a-z][a-z0-9_]{0,31}$"`
	Label string `json:"label" maxLength:"60"`
}

// Thresholds are score cut-offs of the tiers (nurture starts at Nurture).
type Thresholds struct {
	SQL     int `json:"sql" minimum:"1" maximum:"100"`
	MQL     int `json:"mql" minimum:"1" maximum:"100"`
	Nurture int `json:"nurture" minimum:"0" maximum:"100"`
}

// DefaultThresholds apply when a bot sets none.
var DefaultThresholds = Thresholds{SQL: 70, MQL: 40, Nurture: 15}

func decode[T any](raw string) T {
	var v T
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &v) // written by us, validated on the way in
	}
	return v
}

func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("bot: encode settings: " + err.Error()) // plain structs always marshal
	}
	return string(b)
}

// Appearance decodes the stored appearance.
func (b *Bot) Appearance() Appearance { return decode[Appearance](b.AppearanceJSON) }

// Copy decodes the stored copy.
func (b *Bot) Copy() Copy { return decode[Copy](b.CopyJSON) }

// LiveChat decodes the stored live-chat settings.
func (b *Bot) LiveChat() LiveChat {
	l := decode[LiveChat](b.LiveChatJSON)
	if l.HandoffTimeoutSeconds <= 0 {
		l.HandoffTimeoutSeconds = int(DefaultHandoffTimeout / time.Second)
	}
	return l
}

// Qualification decodes the stored qualification settings, with the BANT
// preset's defaults when none were set.
func (b *Bot) Qualification() Qualification {
	q := decode[Qualification](b.QualificationJSON)
	if q.Framework == "" {
		q.Framework = "bant"
	}
	if len(q.Weights) == 0 {
		if p, ok := FrameworkPreset(q.Framework); ok {
			q.Weights = p.DefaultWeights()
		}
	}
	if q.Thresholds == nil {
		t := DefaultThresholds
		q.Thresholds = &t
	}
	return q
}

// AllowedOrigins decodes the widget origin allowlist.
func (b *Bot) AllowedOrigins() []string {
	o := decode[[]string](b.OriginsJSON)
	if o == nil {
		o = []string{}
	}
	return o
}

// RecrawlLastRunSummary decodes the last auto-recrawl run, if any.
func (b *Bot) RecrawlLastRunSummary() *RecrawlRun {
	if b.RecrawlLastRun == nil || *b.RecrawlLastRun == "" {
		return nil
	}
	r := decode[RecrawlRun](*b.RecrawlLastRun)
	return &r
}

// RecrawlRun summarises one auto-recrawl run.
type RecrawlRun struct {
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Checked    int       `json:"pages_checked"`
	Changed    int       `json:"pages_changed"`
	Added      int       `json:"pages_added"`
	Removed    int       `json:"pages_removed"`
	Failed     int       `json:"pages_failed"`
}
