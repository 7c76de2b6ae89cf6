package httpapi

import "concierge/internal/bot"

// The settings groups as a PATCH or POST /bots body may carry them: every
// field optional, because each group is merged (RFC 7396) into what is
// stored. These types only describe and bound the input; the bot package
// validates and merges the raw fields.

type liveChatPatch struct {
	Enabled               *bool       `json:"enabled,omitempty" doc:"Turning live chat on needs the live_chat feature."`
	HandoffKeywords       []string    `json:"handoff_keywords,omitempty" maxItems:"20" doc:"Visitor phrases that offer a human."`
	AwayMessage           *string     `json:"away_message,omitempty" maxLength:"500"`
	Timezone              *string     `json:"timezone,omitempty" maxLength:"64" doc:"IANA zone of the business hours, e.g. Asia/Kolkata."`
	BusinessHours         []bot.Hours `json:"business_hours,omitempty" maxItems:"14" doc:"Replaces the list; none means always open."`
	OfferContactForm      *bool       `json:"offer_contact_form,omitempty" doc:"Offer the contact form when nobody is available."`
	HandoffTimeoutSeconds *int        `json:"handoff_timeout_seconds,omitempty" minimum:"10" maximum:"3600" doc:"Seconds a hand-off waits for an operator before going back to the bot; default 120."`
	PreChatForm           *bool       `json:"pre_chat_form,omitempty" doc:"The widget asks for name and e-mail before the first message."`
}

type thresholdsPatch struct {
	SQL     *int `json:"sql,omitempty" minimum:"1" maximum:"100"`
	MQL     *int `json:"mql,omitempty" minimum:"1" maximum:"100"`
	Nurture *int `json:"nurture,omitempty" minimum:"0" maximum:"100"`
}

type qualificationPatch struct {
	Framework  *string          `json:"framework,omitempty" doc:"Preset key: bant, champ, meddic or custom."`
	Weights    map[string]int   `json:"weights,omitempty" doc:"Weight per dimension of the framework (merged)."`
	Dimensions []bot.Dimension  `json:"dimensions,omitempty" maxItems:"10" doc:"The custom framework's dimensions (replaces the list)."`
	Thresholds *thresholdsPatch `json:"thresholds,omitempty" doc:"Minimum scores of the sql and mql tiers and of nurture; must satisfy sql > mql > nurture."`
}
