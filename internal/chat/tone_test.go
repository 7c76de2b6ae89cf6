package chat

import "testing"

func TestClassifyTone(t *testing.T) {
	cases := map[string]string{
		"enthusiastic": "We love parties! Grab the brightest balloons in town! Order today and celebrate! Confetti for everyone!",
		"formal": "The Company shall process personal data in accordance with applicable law. Furthermore, the Customer hereby " +
			"agrees to the terms set out herein. Pursuant to clause 4, notices shall be delivered in writing.",
		"professional": "Our enterprise solutions help organizations ensure compliance across their services. We deliver " +
			"professional services to clients in regulated industries, with dedicated account teams and documented processes.",
		"casual": "We're a tiny shop. It's fun. You'll dig it. Don't worry, we've got you. Ship's fast.",
	}
	for want, text := range cases {
		if got, scores := classifyTone(text); got != want {
			t.Errorf("%s text classified %s: %v", want, got, scores)
		}
	}
}
