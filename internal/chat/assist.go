package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"concierge/internal/apperr"
	"concierge/internal/bot"
	"concierge/internal/store"
)

// Owner-facing helpers that read the bot's knowledge: the seed questions
// the widget suggests (spec 4.2 rule 6) and the brand tone (rule 5). Both
// are deterministic with the default answerer; the questions are checked
// with exactly the retrieval a visitor's question goes through.

const (
	maxSeedQuestions = 3
	assistPassages   = 400 // passages read to propose questions or judge tone
)

type knowledgePassage struct {
	Title       string `db:"title"`
	HeadingPath string `db:"heading_path"`
	Text        string `db:"text"`
	Source      string `db:"source"`
}

func (s *Service) knowledgeSample(ctx context.Context, workspaceID, botID int64, source string) ([]knowledgePassage, error) {
	q := `SELECT p.title, p.heading_path, p.text, d.source FROM passages p JOIN documents d ON d.id = p.document_id
		WHERE p.bot_id = ? AND p.workspace_id = ? AND d.status = 'ready'`
	args := []any{botID, workspaceID}
	if source != "" {
		q += ` AND d.source = ?`
		args = append(args, source)
	}
	q += ` ORDER BY d.id, p.ordinal LIMIT ?`
	args = append(args, assistPassages)
	var out []knowledgePassage
	if err := store.Select(ctx, s.db.Reader(), &out, q, args...); err != nil {
		return nil, fmt.Errorf("chat: knowledge sample: %w", err)
	}
	return out, nil
}

// SeedQuestions returns up to three questions a visitor might ask that the
// bot answers today. The first result is cached on the bot; force
// recomputes. An empty list is a normal outcome (no knowledge yet, or
// nothing it can answer).
func (s *Service) SeedQuestions(ctx context.Context, workspaceID, botID int64, force bool) ([]string, error) {
	v, err := s.bots.Get(ctx, workspaceID, botID)
	if err != nil {
		return nil, err
	}
	if !force {
		var cached *string
		if err := store.Get(ctx, s.db.Reader(), &cached, `SELECT seed_questions FROM bots WHERE id = ? AND workspace_id = ?`,
			botID, workspaceID); err != nil {
			return nil, fmt.Errorf("chat: seed questions: %w", err)
		}
		if cached != nil {
			var qs []string
			if json.Unmarshal([]byte(*cached), &qs) == nil {
				return qs, nil
			}
		}
	}
	sample, err := s.knowledgeSample(ctx, workspaceID, botID, "")
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, q := range candidateQuestions(sample) {
		if len(out) == maxSeedQuestions {
			break
		}
		hits, err := s.retrieval.Search(ctx, workspaceID, botID, q, retrieveK)
		if err != nil {
			return nil, err
		}
		if composeExtractive(Prompt{Bot: v.Bot, Question: q, Passages: hits}).Answered {
			out = append(out, q)
		}
	}
	raw, _ := json.Marshal(out)
	if _, err := store.Exec(ctx, s.db.Writer(), `UPDATE bots SET seed_questions = ?, seed_questions_at = ? WHERE id = ? AND workspace_id = ?`,
		string(raw), s.clock.Now(), botID, workspaceID); err != nil {
		return nil, fmt.Errorf("chat: cache seed questions: %w", err)
	}
	return out, nil
}

// topicQuestions turn the subjects a site usually has into the questions
// its visitors ask; the first matching pattern of a heading wins.
var topicQuestions = []struct {
	re *regexp.Regexp
	q  string
}{
	{regexp.MustCompile(`(?i)\b(pricing|prices?|plans?|cost|fees?)\b`), "How much does it cost?"},
	{regexp.MustCompile(`(?i)\b(shipping|delivery|dispatch)\b`), "How long does delivery take?"},
	{regexp.MustCompile(`(?i)\b(returns?|refunds?|exchanges?)\b`), "What is your return policy?"},
	{regexp.MustCompile(`(?i)\b(support|help ?desk|contact)\b`), "How can I contact support?"},
	{regexp.MustCompile(`(?i)\b(hours|opening|timings?)\b`), "What are your opening hours?"},
	{regexp.MustCompile(`(?i)\b(trial|demo)\b`), "Can I try it before buying?"},
	{regexp.MustCompile(`(?i)\b(integrations?|api|connect)\b`), "Which integrations do you offer?"},
	{regexp.MustCompile(`(?i)\b(security|privacy|gdpr|compliance)\b`), "How do you protect my data?"},
	{regexp.MustCompile(`(?i)\b(warranty|guarantee)\b`), "What warranty do you offer?"},
	{regexp.MustCompile(`(?i)\b(locations?|address|offices?|stores?)\b`), "Where are you located?"},
	{regexp.MustCompile(`(?i)\b(features?|capabilities)\b`), "What are the main features?"},
}

// candidateQuestions proposes questions from the knowledge, most
// promising first: the questions the site itself asks (FAQ entries), then
// the usual questions about the topics its headings name, then a question
// about each heading.
func candidateQuestions(sample []knowledgePassage) []string {
	var faq, topic, heading []string
	seen := map[string]bool{}
	add := func(list *[]string, q string) {
		key := strings.ToLower(q)
		if !seen[key] {
			seen[key] = true
			*list = append(*list, q)
		}
	}
	for _, p := range sample {
		for _, sent := range sentences(p.Text) {
			if strings.HasSuffix(sent, "?") && utf8.RuneCountInString(sent) >= 12 && utf8.RuneCountInString(sent) <= 120 {
				add(&faq, sent)
			}
		}
		for _, h := range append(strings.Split(p.HeadingPath, " › "), p.Title) {
			h = strings.TrimSpace(h)
			if h == "" || utf8.RuneCountInString(h) > 60 {
				continue
			}
			if strings.HasSuffix(h, "?") {
				add(&faq, h)
				continue
			}
			matched := false
			for _, tq := range topicQuestions {
				if tq.re.MatchString(h) {
					add(&topic, tq.q)
					matched = true
					break
				}
			}
			if !matched && len(strings.Fields(h)) <= 6 {
				add(&heading, "What can you tell me about "+lowerFirst(h)+"?")
			}
		}
	}
	return slices.Concat(faq, topic, heading)
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	// Keep acronyms and names that are capitalised throughout.
	if n < len(s) {
		if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// ToneResult is a detected brand tone.
type ToneResult struct {
	TonePreset      string             `json:"tone_preset"`
	BrandTone       string             `json:"brand_tone"`
	BrandToneLocked bool               `json:"brand_tone_locked"`
	Scores          map[string]float64 `json:"scores" doc:"How strongly the content matched each preset."`
	Passages        int                `json:"passages_read"`
}

// DetectTone classifies the voice of the bot's crawled pages (its uploads
// when it has no pages) into a brand-tone preset, writes the preset's text
// and key on the bot, and unlocks brand_tone so later crawls may refresh
// it until the owner edits it again. Nothing is fetched.
func (s *Service) DetectTone(ctx context.Context, workspaceID, botID int64) (*ToneResult, error) {
	if _, err := s.bots.Get(ctx, workspaceID, botID); err != nil {
		return nil, err
	}
	sample, err := s.knowledgeSample(ctx, workspaceID, botID, "crawl")
	if err != nil {
		return nil, err
	}
	if len(sample) == 0 {
		if sample, err = s.knowledgeSample(ctx, workspaceID, botID, ""); err != nil {
			return nil, err
		}
	}
	if len(sample) == 0 {
		return nil, apperr.Conflict("the bot has no content yet: crawl its website (or upload files) first")
	}
	texts := make([]string, len(sample))
	for i, p := range sample {
		texts[i] = p.Text
	}
	key, scores := classifyTone(strings.Join(texts, "\n"))
	preset := tonePreset(key)
	if _, err := store.Exec(ctx, s.db.Writer(), `UPDATE bots SET tone_preset = ?, brand_tone = ?, brand_tone_locked = ?,
		updated_at = ? WHERE id = ? AND workspace_id = ?`, preset.Key, preset.Text, false, s.clock.Now(), botID, workspaceID); err != nil {
		return nil, fmt.Errorf("chat: save tone: %w", err)
	}
	return &ToneResult{TonePreset: preset.Key, BrandTone: preset.Text, Scores: scores, Passages: len(sample)}, nil
}

// RefreshTone re-detects the brand tone after a crawl, unless the owner
// has written their own (brand_tone_locked). Failures are logged: a crawl
// never fails because of it.
func (s *Service) RefreshTone(ctx context.Context, workspaceID, botID int64) {
	var locked bool
	if err := store.Get(ctx, s.db.Reader(), &locked, `SELECT brand_tone_locked FROM bots WHERE id = ? AND workspace_id = ?`,
		botID, workspaceID); err != nil || locked {
		return
	}
	if _, err := s.DetectTone(ctx, workspaceID, botID); err != nil {
		s.log.WarnContext(ctx, "chat: brand tone after crawl", "bot_id", botID, "err", err)
	}
}

func tonePreset(key string) bot.TonePreset {
	for _, t := range bot.TonePresets {
		if t.Key == key {
			return t
		}
	}
	return bot.TonePresets[0]
}

var (
	contractionRE = regexp.MustCompile(`(?i)\b\w+'(s|re|ve|ll|d|m|t)\b`)
	emojiRE       = regexp.MustCompile(`[\x{1F300}-\x{1FAFF}\x{2600}-\x{27BF}]`)
	formalWords   = map[string]bool{"therefore": true, "pursuant": true, "hereby": true, "furthermore": true, "moreover": true,
		"shall": true, "accordance": true, "thereof": true, "herein": true, "regarding": true, "whereas": true}
	businessWords = map[string]bool{"solutions": true, "enterprise": true, "ensure": true, "leverage": true, "compliance": true,
		"professional": true, "services": true, "clients": true, "organisation": true, "organization": true}
	warmWords = map[string]bool{"love": true, "happy": true, "glad": true, "welcome": true, "enjoy": true, "together": true,
		"friendly": true, "care": true, "help": true, "thanks": true}
	empathyWords = map[string]bool{"understand": true, "sorry": true, "support": true, "feel": true, "worry": true,
		"difficult": true, "here": true, "care": true, "safe": true}
)

// classifyTone scores each preset from surface features of the text:
// exclamations, emoji, contractions, sentence length, address of the
// reader, formal and business vocabulary. Deterministic and explainable;
// the scores are returned so the owner sees why.
func classifyTone(text string) (string, map[string]float64) {
	sents := sentences(text)
	n := float64(max(len(sents), 1))
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	nw := float64(max(len(words), 1))
	count := func(set map[string]bool) float64 {
		c := 0.0
		for _, w := range words {
			if set[w] {
				c++
			}
		}
		return c / nw * 100
	}
	excl := float64(strings.Count(text, "!")) / n
	emoji := float64(len(emojiRE.FindAllString(text, -1))) / n
	contractions := float64(len(contractionRE.FindAllString(text, -1))) / nw * 100
	you := 0.0
	for _, w := range words {
		if w == "you" || w == "your" || w == "we" || w == "our" {
			you++
		}
	}
	you = you / nw * 100
	avgLen := nw / n
	formal, business, warm, empathy := count(formalWords), count(businessWords), count(warmWords), count(empathyWords)
	scores := map[string]float64{
		"professional": 1 + business*2 + clamp(avgLen/20) - excl*2 - contractions*0.3,
		"formal":       formal*4 + clamp(avgLen/25) - contractions - excl*3,
		"friendly":     you*0.3 + warm + contractions*0.5 + excl,
		"casual":       contractions*1.2 + clamp(12/avgLen) + emoji*2,
		"enthusiastic": excl*10 + emoji*3 + warm*0.5,
		"concise":      clamp(10/avgLen) * 1.5,
		"empathetic":   empathy*2.5 + you*0.2,
		"playful":      emoji*6 + excl*2 + contractions*0.5,
	}
	best := "professional"
	for _, t := range bot.TonePresets {
		scores[t.Key] = float64(int64(scores[t.Key]*1000)) / 1000
		if scores[t.Key] > scores[best] {
			best = t.Key
		}
	}
	return best, scores
}

func clamp(f float64) float64 { return min(max(f, 0), 2) }

// tonePrefixes open a sample reply in each preset's voice.
var tonePrefixes = map[string]string{
	"professional": "Thank you for your question. ",
	"friendly":     "Happy to help! ",
	"casual":       "Sure thing: ",
	"enthusiastic": "Great question! ",
	"concise":      "",
	"empathetic":   "I understand, and I'm glad to help. ",
	"formal":       "Thank you for your enquiry. ",
	"playful":      "Ooh, good one! ",
}

// PreviewTone writes a one- or two-sentence sample reply in an unsaved
// tone, answering one of the bot's own seed questions from its knowledge
// when it can, or the preset's sample otherwise. Nothing is saved.
func (s *Service) PreviewTone(ctx context.Context, workspaceID, botID int64, presetKey, brandTone string) (string, string, error) {
	v, err := s.bots.Get(ctx, workspaceID, botID)
	if err != nil {
		return "", "", err
	}
	if presetKey == "" {
		presetKey = v.TonePreset
	}
	preset := tonePreset(presetKey)
	if presetKey != "" && preset.Key != presetKey {
		return "", "", apperr.Invalid("body.tone_preset", "unknown preset; see GET /bots/brand-tone-presets", "value_error")
	}
	sample, err := s.knowledgeSample(ctx, workspaceID, botID, "")
	if err != nil {
		return "", "", err
	}
	for _, q := range candidateQuestions(sample) {
		hits, err := s.retrieval.Search(ctx, workspaceID, botID, q, retrieveK)
		if err != nil {
			return "", "", err
		}
		ans := composeExtractive(Prompt{Bot: v.Bot, Question: q, Passages: hits})
		if !ans.Answered {
			continue
		}
		first := sentences(ans.Text)[0]
		return q, tonePrefixes[preset.Key] + first, nil
	}
	return "", preset.Sample, nil
}
