package bot

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"concierge/internal/account"
	"concierge/internal/apperr"
)

// restrictedFields cannot be changed under a super-admin impersonation
// session (spec 4.2 rule 4): they decide where visitor data and e-mails go.
var restrictedFields = []string{"allowed_origins", "notification_email", "reply_to_email"}

// Gate answers feature questions while settings are applied.
type Gate interface {
	Require(feature string) error
}

// fieldErrors collects validation problems to report them all at once.
type fieldErrors []apperr.FieldError

func (f *fieldErrors) add(loc, msg, typ string) {
	*f = append(*f, apperr.FieldError{Loc: strings.Split("body."+loc, "."), Msg: msg, Type: typ})
}

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return &apperr.Validation{Fields: f}
}

// apply writes the fields present in a create or update body onto b. Each
// field group is merged (RFC 7396): keys sent replace stored ones, null
// removes them, absent keys stay. Unknown top-level keys are ignored, so ids,
// keys, subscription references and derived state cannot be written.
func apply(b *Bot, fields map[string]json.RawMessage, restricted bool, gate Gate) error {
	if restricted {
		var hit []string
		for _, k := range restrictedFields {
			if _, ok := fields[k]; ok {
				hit = append(hit, k)
			}
		}
		if len(hit) > 0 {
			return apperr.Forbidden(strings.Join(hit, ", ") + " cannot be changed during an impersonation session")
		}
	}
	var errs fieldErrors
	for key, raw := range fields {
		switch key {
		case "name":
			if s, ok := text(&errs, key, raw, 1, 100); ok {
				b.Name = s
			}
		case "greeting":
			if s, ok := text(&errs, key, raw, 0, 1000); ok {
				b.Greeting = s
			}
		case "prompt":
			if s, ok := text(&errs, key, raw, 0, 8000); ok {
				b.Prompt = s
			}
		case "offline_message":
			if s, ok := text(&errs, key, raw, 0, 1000); ok {
				b.OfflineMessage = s
			}
		case "tone":
			applyTone(b, raw, &errs)
		case "appearance":
			if v, ok := mergeGroup[Appearance](&errs, key, b.AppearanceJSON, raw); ok {
				checkImageURL(&errs, "appearance.avatar_url", v.AvatarURL)
				checkImageURL(&errs, "appearance.logo_url", v.LogoURL)
				if v.ShowBranding != nil && !*v.ShowBranding && gate != nil {
					if err := gate.Require("custom_branding"); err != nil {
						return err
					}
				}
				b.AppearanceJSON = encode(v)
			}
		case "copy":
			if v, ok := mergeGroup[Copy](&errs, key, b.CopyJSON, raw); ok {
				b.CopyJSON = encode(v)
			}
		case "live_chat":
			if v, ok := mergeGroup[LiveChat](&errs, key, b.LiveChatJSON, raw); ok {
				if t := v.HandoffTimeoutSeconds; t != 0 && (t < 10 || t > 3600) {
					errs.add("live_chat.handoff_timeout_seconds", "must be between 10 and 3600", "value_error")
					continue
				}
				if v.Enabled && !b.LiveChat().Enabled && gate != nil {
					if err := gate.Require("live_chat"); err != nil {
						return err
					}
				}
				b.LiveChatJSON = encode(v)
			}
		case "qualification":
			if v, ok := mergeGroup[Qualification](&errs, key, withDefaultThresholds(b.QualificationJSON), raw); ok {
				checkQualification(&errs, &v)
				b.QualificationJSON = encode(v)
			}
		case "allowed_origins":
			var list []string
			if err := json.Unmarshal(raw, &list); err != nil {
				errs.add(key, "must be a list of origins", "type_error")
				continue
			}
			if o, ok := normalizeOrigins(&errs, list); ok {
				b.OriginsJSON = encode(o)
			}
		case "notification_email":
			b.NotificationEmail = optionalEmail(&errs, key, raw, b.NotificationEmail)
		case "reply_to_email":
			b.ReplyToEmail = optionalEmail(&errs, key, raw, b.ReplyToEmail)
		}
	}
	return errs.err()
}

func text(errs *fieldErrors, key string, raw json.RawMessage, min, max int) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		errs.add(key, "must be a string", "type_error")
		return "", false
	}
	s = strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(s); {
	case n < min:
		errs.add(key, fmt.Sprintf("must be at least %d characters", min), "too_short")
		return "", false
	case n > max:
		errs.add(key, fmt.Sprintf("must be at most %d characters", max), "too_long")
		return "", false
	}
	return s, true
}

func applyTone(b *Bot, raw json.RawMessage, errs *fieldErrors) {
	var t struct {
		Preset    *string `json:"preset"`
		BrandTone *string `json:"brand_tone"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		errs.add("tone", "must be an object with preset and brand_tone", "type_error")
		return
	}
	if t.Preset != nil {
		p, ok := TonePresetByKey(*t.Preset)
		if !ok {
			errs.add("tone.preset", "unknown tone preset; see GET /bots/brand-tone-presets", "enum")
			return
		}
		b.TonePreset = p.Key
		if t.BrandTone == nil {
			b.BrandTone = p.Text
		}
	}
	if t.BrandTone != nil {
		s := strings.TrimSpace(*t.BrandTone)
		if utf8.RuneCountInString(s) > 2000 {
			errs.add("tone.brand_tone", "must be at most 2000 characters", "too_long")
			return
		}
		b.BrandTone = s
	}
	// The customer chose the tone: later crawls must not overwrite it until
	// brand-tone detection is asked for again.
	b.BrandToneLocked = true
}

// mergeGroup merges patch into the stored group (RFC 7396) and decodes the
// result into its type. JSON null resets the group.
func mergeGroup[T any](errs *fieldErrors, key, stored string, patch json.RawMessage) (T, bool) {
	var zero T
	if strings.TrimSpace(string(patch)) == "null" {
		return zero, true
	}
	var base map[string]any
	_ = json.Unmarshal([]byte(stored), &base)
	var p any
	if err := json.Unmarshal(patch, &p); err != nil {
		errs.add(key, "must be an object", "type_error")
		return zero, false
	}
	pm, ok := p.(map[string]any)
	if !ok {
		errs.add(key, "must be an object", "type_error")
		return zero, false
	}
	merged := mergePatch(base, pm)
	raw, _ := json.Marshal(merged)
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		errs.add(key, "has a field of the wrong type: "+err.Error(), "type_error")
		return zero, false
	}
	return v, true
}

// withDefaultThresholds makes the default thresholds explicit in a stored
// qualification group, so a patch of one threshold merges into them.
func withDefaultThresholds(stored string) string {
	var q map[string]any
	_ = json.Unmarshal([]byte(stored), &q)
	if q == nil {
		q = map[string]any{}
	}
	if _, ok := q["thresholds"]; !ok {
		q["thresholds"] = DefaultThresholds
	}
	return encode(q)
}

// mergePatch applies an RFC 7396 merge patch.
func mergePatch(target, patch map[string]any) map[string]any {
	if target == nil {
		target = map[string]any{}
	}
	for k, v := range patch {
		if v == nil {
			delete(target, k)
			continue
		}
		if pm, ok := v.(map[string]any); ok {
			tm, _ := target[k].(map[string]any)
			target[k] = mergePatch(tm, pm)
			continue
		}
		target[k] = v
	}
	return target
}

func checkImageURL(errs *fieldErrors, loc, s string) {
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		errs.add(loc, "must be an https:// URL", "url_scheme")
	}
}

func checkQualification(errs *fieldErrors, q *Qualification) {
	if q.Framework == "" {
		q.Framework = "bant"
	}
	preset, ok := FrameworkPreset(q.Framework)
	if !ok {
		errs.add("qualification.framework", "unknown framework; see GET /bots/{bot_id}/framework-presets", "enum")
		return
	}
	valid := map[string]bool{}
	if q.Framework == "custom" && len(q.Dimensions) > 0 {
		for _, d := range q.Dimensions {
			valid[d.Key] = true
		}
	} else {
		q.Dimensions = nil
		for _, d := range preset.Dimensions {
			valid[d.Key] = true
		}
	}
	total := 0
	for k, w := range q.Weights {
		if !valid[k] {
			errs.add("qualification.weights."+k, "not a dimension of the "+q.Framework+" framework", "value_error")
			continue
		}
		if w < 0 || w > 100 {
			errs.add("qualification.weights."+k, "must be between 0 and 100", "value_error")
			continue
		}
		total += w
	}
	if len(q.Weights) > 0 && total == 0 {
		errs.add("qualification.weights", "at least one weight must be positive", "value_error")
	}
	if t := q.Thresholds; t != nil && !(t.SQL > t.MQL && t.MQL > t.Nurture) {
		errs.add("qualification.thresholds", "must satisfy sql > mql > nurture", "value_error")
	}
}

// normalizeOrigins checks and canonicalises widget origins
// (scheme://host[:port], lower case, no path), removing duplicates.
func normalizeOrigins(errs *fieldErrors, list []string) ([]string, bool) {
	if len(list) > 50 {
		errs.add("allowed_origins", "at most 50 origins", "too_long")
		return nil, false
	}
	out := []string{}
	seen := map[string]bool{}
	ok := true
	for i, s := range list {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.Contains(u.Host, "*") {
			errs.add(fmt.Sprintf("allowed_origins.%d", i), "must be an origin like https://www.example.com", "value_error")
			ok = false
			continue
		}
		o := strings.ToLower(u.Scheme + "://" + u.Host)
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out, ok
}

func optionalEmail(errs *fieldErrors, key string, raw json.RawMessage, old *string) *string {
	if strings.TrimSpace(string(raw)) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		errs.add(key, "must be an e-mail address or null", "type_error")
		return old
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	e, err := account.NormalizeEmail(s)
	if err != nil {
		errs.add(key, err.Error(), "value_error")
		return old
	}
	return &e
}
