package bot

// Framework is a lead-qualification framework preset.
type Framework struct {
	Key         string            `json:"key"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Dimensions  []FrameworkWeight `json:"dimensions"`
}

// FrameworkWeight is one dimension of a framework with its default weight.
type FrameworkWeight struct {
	Key           string `json:"key"`
	Label         string `json:"label"`
	DefaultWeight int    `json:"default_weight"`
}

// DefaultWeights returns the preset's weights by dimension.
func (f Framework) DefaultWeights() map[string]int {
	w := make(map[string]int, len(f.Dimensions))
	for _, d := range f.Dimensions {
		w[d.Key] = d.DefaultWeight
	}
	return w
}

// Frameworks are the qualification presets. Weights sum to 100.
var Frameworks = []Framework{
	{Key: "bant", Name: "BANT", Description: "Budget, Authority, Need, Timeline: the classic sales qualification.",
		Dimensions: []FrameworkWeight{
			{"budget", "Budget", 25}, {"authority", "Authority", 20}, {"need", "Need", 35}, {"timeline", "Timeline", 20}}},
	{Key: "champ", Name: "CHAMP", Description: "Challenges first, then Authority, Money and Prioritization.",
		Dimensions: []FrameworkWeight{
			{"challenges", "Challenges", 35}, {"authority", "Authority", 20}, {"money", "Money", 25}, {"prioritization", "Prioritization", 20}}},
	{Key: "meddic", Name: "MEDDIC", Description: "Metrics, Economic buyer, Decision criteria, Decision process, Identify pain, Champion: for complex B2B sales.",
		Dimensions: []FrameworkWeight{
			{"metrics", "Metrics", 15}, {"economic_buyer", "Economic buyer", 20}, {"decision_criteria", "Decision criteria", 15},
			{"decision_process", "Decision process", 15}, {"identify_pain", "Identify pain", 20}, {"champion", "Champion", 15}}},
	{Key: "custom", Name: "Custom", Description: "Your own dimensions (up to 10) and weights; these defaults are a starting point.",
		Dimensions: []FrameworkWeight{
			{"need", "Need", 40}, {"budget", "Budget", 30}, {"timeline", "Timeline", 30}}},
}

// FrameworkPreset finds a framework by key.
func FrameworkPreset(key string) (Framework, bool) {
	for _, f := range Frameworks {
		if f.Key == key {
			return f, true
		}
	}
	return Framework{}, false
}

// TonePreset is a brand-tone preset: its text becomes the bot's brand_tone.
type TonePreset struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Text        string `json:"text" doc:"The brand_tone text the preset writes."`
	Sample      string `json:"sample" doc:"An example reply in this tone."`
}

// TonePresets is the brand-tone catalogue.
var TonePresets = []TonePreset{
	{"professional", "Professional", "Clear, courteous and precise.",
		"Write in a clear, courteous and professional voice. Be precise, avoid slang, and keep answers focused on what the visitor asked.",
		"Thanks for your question. Our Standard plan includes priority support and three chatbots."},
	{"friendly", "Friendly", "Warm and approachable, like a helpful colleague.",
		"Write in a warm, approachable voice, like a helpful colleague. Use plain words and a positive tone, without overdoing exclamation marks.",
		"Happy to help! The Standard plan gives you three chatbots and priority support."},
	{"casual", "Casual", "Relaxed and conversational.",
		"Write in a relaxed, conversational voice. Short sentences, everyday words, contractions welcome.",
		"Sure thing: Standard gets you three bots and faster support."},
	{"enthusiastic", "Enthusiastic", "Energetic and upbeat.",
		"Write with energy and enthusiasm about the product, while staying accurate and never overpromising.",
		"Great choice to ask! Standard unlocks three chatbots and priority support."},
	{"concise", "Concise", "As short as possible, no filler.",
		"Answer as briefly as possible. No filler, no pleasantries beyond one word; lists over paragraphs.",
		"Standard: 3 chatbots, priority support."},
	{"empathetic", "Empathetic", "Patient and reassuring.",
		"Write with patience and empathy. Acknowledge the visitor's situation before answering, and reassure without making promises you cannot keep.",
		"I understand choosing a plan can be confusing. Standard includes three chatbots and priority support, which suits most growing teams."},
	{"formal", "Formal", "Formal and respectful, for regulated industries.",
		"Write formally and respectfully, in complete sentences, avoiding contractions and colloquialisms.",
		"Thank you for your enquiry. The Standard plan includes three chatbots and priority support."},
	{"playful", "Playful", "Light-hearted with a touch of humour.",
		"Write in a light-hearted, playful voice with a touch of humour, while keeping facts accurate and respectful.",
		"Three chatbots and VIP support? That's Standard, and it's a crowd favourite."},
}

// TonePresetByKey finds a tone preset.
func TonePresetByKey(key string) (TonePreset, bool) {
	for _, p := range TonePresets {
		if p.Key == key {
			return p, true
		}
	}
	return TonePreset{}, false
}
