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

// TestGroupingParaphrases: twenty everyday intents in wordings written for
// this test (other words, slang, frames, near-neighbour intents side by
// side), grouped together as one set: pairwise F1 printed, with the floor
// measured when it was written less a little (2026-11-26, fourth round:
// precision 0.886, recall 0.786, F1 0.833; the third round's code: 0.914,
// 0.759, 0.830). Its wordings were probed while the fourth round's
// lexicon was written, so it is development data too.
func TestGroupingParaphrases(t *testing.T) {
	groups := [][]string{
		{"whats the cost", "how much do you guys charge", "pricing info please", "what are your rates", "how expensive is it", "price?", "cost of membership", "how much is a subscription"},
		{"do you offer a free trial", "can i test it out first", "is there a trial", "can i try before buying", "free trial length", "trial period?"},
		{"how do i cancel", "i want to cancel my subscription", "stop my membership", "end my subscription", "how to quit the service", "cancel my account subscription"},
		{"where is my refund", "i havent received my refund", "refund still not showing", "when do i get my money back", "refund status?", "my refund hasnt come through"},
		{"how do i return an item", "what is the return policy", "can i send this back", "returns process", "i want to return my order", "how long do i have to return"},
		{"where is my package", "tracking my order", "my order hasnt arrived", "order still not here", "has my order shipped", "delivery status"},
		{"when are you open", "opening hours?", "what time do you close", "are you open on sundays", "hours today", "what are your hours on holidays"},
		{"where are you based", "whats the address", "how do i find you", "directions to your store", "where is the shop", "location?"},
		{"i forgot my password", "reset password", "cant log in", "password not working", "how do i change my password", "locked out of my account"},
		{"delete my account", "how do i close my account", "remove my account", "i want to deactivate my profile", "erase my account and data"},
		{"can i pay with paypal", "do you accept credit cards", "payment options?", "can i pay by bank transfer", "do you take apple pay", "what forms of payment do you accept"},
		{"talk to a human", "can i speak to someone", "real person please", "connect me to an agent", "i want to speak with support", "is there a live agent"},
		{"i want to complain", "this is terrible service", "how do i make a complaint", "very unhappy with my order", "i want to file a complaint"},
		{"are you hiring", "job vacancies", "how can i work for you", "any open positions", "careers?", "do you have jobs available"},
		{"book an appointment", "i want to make an appointment", "can i schedule a consultation", "book a session", "when can i come in", "appointment availability"},
		{"i need to cancel my appointment", "cancel my booking", "i cant make my appointment", "please cancel my visit tomorrow"},
		{"can i reschedule", "change my appointment time", "move my booking to next week", "can we do a different day"},
		{"do you have vegan options", "gluten free?", "i have a nut allergy", "do you cater for vegetarians", "allergen information"},
		{"can i book a table for 4", "table for two tonight", "do you take reservations", "reserve a table", "i want to make a reservation for dinner"},
		{"do you have parking", "where do i park", "is there a car park", "parking available?"},
	}

	var qs []string
	var labels []int
	for gi, g := range groups {
		for _, q := range g {
			qs, labels = append(qs, q), append(labels, gi)
		}
	}
	p, r, f := pairwise(labels, groupQuestions(qs))
	t.Logf("paraphrases: %d questions in %d intents: pairwise precision %.3f recall %.3f F1 %.3f", len(qs), len(groups), p, r, f)
	if f < paraphraseFloor {
		t.Errorf("paraphrases: pairwise F1 %.3f fell below the floor %.2f", f, paraphraseFloor)
	}
}

const paraphraseFloor = 0.81
