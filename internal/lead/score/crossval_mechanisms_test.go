package score

import (
	"strings"
	"testing"
)

// convo reads "V: visitor|B: bot|..." into a transcript.
func convo(s string) []Turn {
	var tr []Turn
	for _, p := range strings.Split(s, "|") {
		role := RoleVisitor
		if strings.HasPrefix(p, "B: ") {
			role = RoleBot
		}
		tr = append(tr, Turn{Role: role, Text: p[3:]})
	}
	return tr
}

// TestServiceOnly: one sentence about a fault, an invoice or a vendor
// pitch, and nothing outside it that shows a purchase, is unqualified
// whatever titles, money or dates come with it; an existing customer who
// asks for more, or a buyer whose problem is what the product solves, is
// not. Written for the mechanism, not taken from a labelled set.
func TestServiceOnly(t *testing.T) {
	cases := []struct{ want, conv string }{
		{"unqualified", "V: Hello, I need a copy of my invoice for March, we were double charged.|B: Sorry about that, let me check.|V: I'm the finance director and I need it corrected by Friday, otherwise I can't approve it."},
		{"unqualified", "V: Hola, la caldera que nos instalasteis no funciona desde ayer, pagamos 3.000 € por ella|B: Lo siento, ¿ha comprobado la presión?|V: Sí, y nada. Necesito que venga alguien hoy mismo"},
		{"unqualified", "V: Guten Tag, wir bieten eine Lohnabrechnungssoftware für Handwerksbetriebe an|B: Danke, wie kann ich helfen?|V: Wer ist bei Ihnen für das Budget zuständig? Hätten Sie nächste Woche Zeit für einen Termin?"},
		{"unqualified", "V: humara AC jo aapne lagaya tha woh kaam nahi kar raha, 45,000 diye the|B: Sorry! Main check karta hoon.|V: aaj hi koi bhejo please, urgent hai"},
		{"mql", "V: Hi, we are customers on the Basic plan with 10 users.|B: Thanks! How can I help?|V: We want to add 15 more seats for our sales team. What would the Pro plan cost for 25 users?"},
		{"sql", "V: Our call centre can't keep up, we lose about 200 calls a week.|B: Our assistant answers 24/7.|V: I'm the COO, we have 2,000 € a month for this and want to start this month. Send me a quote."},
	}
	for _, c := range cases {
		tr := convo(c.conv)
		r := Score(qual("bant"), Input{Transcript: tr})
		if r.Tier != c.want {
			t.Errorf("%.60s: %s, want %s: %s", c.conv, r.Tier, c.want, r.Summary)
		}
		checkQuotes(t, c.conv[:20], tr, r)
	}
}
