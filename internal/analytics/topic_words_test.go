package analytics

import "testing"

// TestTopicIntroductions: a writer's name and company, given in a
// greeting or a sign-off, are not part of what is asked.
func TestTopicIntroductions(t *testing.T) {
	for _, c := range []struct{ q, same string }{
		{"hi its sarah, where is my refund", "where is my refund"},
		{"hi my name is tom becker, where is my order", "where is my order"},
		{"hey its mike from acme llc, we need to cancel our subscription", "we need to cancel our subscription"},
		{"hello, this is maria lopez, can i book an appointment", "can i book an appointment"},
		{"can i change my email? thanks, jo", "can i change my email?"},
	} {
		if got, want := Topic(c.q), Topic(c.same); got != want {
			t.Errorf("Topic(%q) = %q, want %q as for %q", c.q, got, want, c.same)
		}
	}
	// Not an introduction: "i'm in ireland" says where to ship.
	if got := Topic("im in ireland, do you ship here"); got != "abroad shipping" {
		t.Errorf("Topic(im in ireland …) = %q, want abroad shipping", got)
	}
}

// TestTopicNearGeneric: a misspelt everyday word weighs as the word.
func TestTopicNearGeneric(t *testing.T) {
	if got, want := Topic("are you open tomorow"), Topic("are you open tomorrow"); got != want {
		t.Errorf("Topic(tomorow) = %q, want %q", got, want)
	}
}

// TestNearNeighbourIntents: intents that share words but need different
// answers stay apart; paraphrases in other words come together.
func TestNearNeighbourIntents(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"how do i unsubscribe from your emails", "stop sending me newsletters", true},
		{"how do i unsubscribe from your emails", "cancel my subscription", false},
		{"how do i export my data", "download all my data as csv", true},
		{"how do i export my data", "are you gdpr compliant", false},
		{"can i see the menu", "what dishes do you have", true},
		{"is breakfast included", "what's on the menu", false},
		{"how much is shipping", "delivery fee?", true},
		{"how much is shipping", "how much does it cost", false},
		{"how long does delivery take", "delivery time to chicago?", true},
		{"delivery time to chicago?", "how much is delivery", false},
		{"do you have an affiliate program", "interested in partnering with you", true},
		{"do you have an affiliate program", "are you hiring", false},
		{"i want to donate", "can i make a donation in memory of my dad", true},
		{"i want to donate", "can i volunteer", false},
		{"there's a power cut on my street", "no electricity since this morning", true},
		{"when is bin day", "which day is rubbish collection", true},
		{"i lost my card", "someone used my card, is this fraud", false},
		{"what time is check in", "can we get into our room early", true},
		{"how do i submit a meter reading", "where do i send my meter readings", true},
		{"there's no power in my house", "power cut on our street", true},
		{"how do i donate", "i want to give money to your charity", true},
		{"how do i make a claim", "my car was in an accident, what do i do", true},
		{"what is the dress code", "what should i wear", true},
		{"is the deposit refundable", "how do i make a claim", false},
		{"what time is check in", "can we get a late checkout", false},
	} {
		s := topicSimilarity(Topic(c.a), Topic(c.b))
		if (s >= GroupThreshold) != c.same {
			t.Errorf("%q (%s) ~ %q (%s): similarity %.2f, same %v", c.a, Topic(c.a), c.b, Topic(c.b), s, c.same)
		}
	}
}
