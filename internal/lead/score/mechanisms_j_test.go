package score

import (
	"strings"
	"testing"
)

// The set J round's mechanisms (testdata/README.md, "The set J round").
// Every sentence below is written for the test, in each language's
// everyday forms, not copied from a labelled set.

// findingOf is the first finding of facet f (denied or not, as deny says)
// in a visitor message read after an optional bot turn; it fails unless
// the quote is the visitor's own words.
func findingOf(t *testing.T, botQ, visitor string, f facet, deny bool) (finding, bool) {
	t.Helper()
	for _, x := range read(botQ, visitor).findings {
		if x.f != f || x.deny != deny {
			continue
		}
		if x.quote == "" || !strings.Contains(visitor, x.quote) {
			t.Errorf("%q: %s quotes %q, not the visitor's words", visitor, f, x.quote)
		}
		return x, true
	}
	return finding{}, false
}

// TestWantToUnderstandIsNoNeed: "I want to understand how you..." opens a
// question about how the business works, in every language; a wish for
// something to buy is still a need.
func TestWantToUnderstandIsNoNeed(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool // a need is read
	}{
		{"queria entender como vocês conseguem um preço tão baixo no frete", false},
		{"quiero entender cómo sacáis esos márgenes", false},
		{"je voulais comprendre comment vous fixez vos tarifs", false},
		{"ich wollte verstehen, wie ihr die Preise kalkuliert", false},
		{"I want to understand how you source your flour", false},
		{"queria um orçamento para 200 sacos por mês", true},
		{"wir wollen ein neues Kassensystem für zwei Filialen", true},
	} {
		_, got := findingOf(t, "", c.text, fNeed, false)
		if got != c.want {
			t.Errorf("%q: need %v, want %v", c.text, got, c.want)
		}
	}
}

// TestPartnershipsInboxIsVendorRoute: a bot that says where partnership
// requests go (an address, the e-mail, the marketing team) sent a seller
// to its vendor inbox; a partnership the business has is no route.
func TestPartnershipsInboxIsVendorRoute(t *testing.T) {
	for _, c := range []struct {
		text, lang string
		want       bool
	}{
		{"Obrigada! Parcerias são avaliadas pela equipa de marketing pelo email parcerias@loja.pt.", "pt", true},
		{"Thanks! Partnerships are handled by our marketing team.", "en", true},
		{"Pour les partenariats, écrivez à contact@atelier.fr.", "fr", true},
		{"Kooperationen prüft unser Marketing, schreiben Sie an info@firma.de.", "de", true},
		{"Collaborations humari marketing team dekhti hai, email kar dijiye.", "hi-en", true},
		{"Temos parceria com bancos para financiar parte do investimento.", "pt", false},
		{"Oui, nous avons un partenariat avec un hôtel à 5 minutes.", "fr", false},
	} {
		if got := botRoutes(c.text, c.lang)&routeVendor != 0; got != c.want {
			t.Errorf("%q: vendor route %v, want %v", c.text, got, c.want)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{TierUnqualified, "V: oi! sou criadora de conteúdo, 60 mil seguidores, queria propor uma parceria: vocês mandam os produtos e eu faço 2 reels|B: Obrigada! Parcerias são avaliadas pela equipa de marketing pelo email parcerias@loja.pt.|V: preciso de resposta até sexta, fecho a agenda do mês"},
	})
}

// TestAudienceIsNotMoney: followers, subscribers and views counted are an
// audience, not an amount of money.
func TestAudienceIsNotMoney(t *testing.T) {
	for _, text := range []string{
		"sou influenciadora, tenho 48 mil seguidores no insta",
		"j'ai 85k abonnés sur TikTok",
		"mein Kanal hat 12 tausend Abonnenten",
		"I have 80k followers on Instagram",
	} {
		if f, ok := findingOf(t, "", text, fBudget, false); ok {
			t.Errorf("%q: read as budget (%s)", text, f.reading)
		}
	}
	if _, ok := findingOf(t, "", "our budget is 48 mil reais", fBudget, false); !ok {
		t.Error("a budget in thousands is no longer read")
	}
}

// TestResearchInterviewIsStudentWork: asking to interview someone of the
// business, or for a questionnaire to be filled in, is research, not a
// purchase; a site survey asked for is a buyer's.
func TestResearchInterviewIsStudentWork(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"would anyone there be open to a 20 minute interview? it's anonymised", true},
		{"could I interview your head of operations next week?", true},
		{"¿podría hacerle una entrevista a la directora? son 15 minutos", true},
		{"tem alguém da equipa que eu possa entrevistar?", true},
		{"quelqu'un pourrait répondre à un questionnaire de 10 questions ?", true},
		{"könnte ich Ihre Teamleitung kurz interviewen?", true},
		{"kya kisi manager ka 10 min interview ho sakta hai?", true},
		{"can your engineer do a site survey this week?", false},
		{"a prospect asked for it in their security questionnaire", false},
	} {
		if _, got := findingOf(t, "", c.text, fStudent, false); got != c.want {
			t.Errorf("%q: student work %v, want %v", c.text, got, c.want)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{TierUnqualified, "V: hi, I'm doing a PhD on energy use in warehouses and I'm talking to logistics providers|B: Sounds interesting. Our sustainability report is public.|V: would someone be open to a 30 minute interview? it would be anonymised|B: You can send the request through the contact form."},
	})
}

// TestBotExpectsVisitorIsBooking: a bot that says it expects the visitor
// ("le esperamos el sábado", "wir freuen uns auf Sie", "kal milte hain")
// confirms a booking; a welcome to a request confirms nothing.
func TestBotExpectsVisitorIsBooking(t *testing.T) {
	for _, c := range []struct {
		text, lang string
		want       bool
	}{
		{"Perfecto, le esperamos el sábado por la mañana.", "es", true},
		{"Genial, los esperamos el jueves a las 10.", "es", true},
		{"Eingetragen. Wir freuen uns auf Sie!", "de", true},
		{"Theek hai sir, kal shaam milte hain.", "hi-en", true},
		{"Wir freuen uns auf Ihre Anfrage.", "de", false},
		{"Group bada hone se rates thode better milte hain.", "hi-en", false},
		{"Si viene, le esperamos con el presupuesto.", "es", false},
	} {
		if got := botRoutes(c.text, c.lang)&routeBooked != 0; got != c.want {
			t.Errorf("%q: booking confirmed %v, want %v", c.text, got, c.want)
		}
	}
}

// TestHowYouDifferIsComparison: asking how the business differs from a
// rival, or saying a rival was looked at too, compares vendors.
func TestHowYouDifferIsComparison(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"¿en qué os diferenciáis de Holded?", true},
		{"em que vocês se diferenciam da Totvs?", true},
		{"en quoi vous distinguez-vous de Qonto ?", true},
		{"wie unterscheidet ihr euch von Personio?", true},
		{"wir haben uns auch die Waldorfschule in Konstanz angeschaut", true},
		{"también hemos visto la academia del centro", true},
		{"we also looked at two other venues downtown", true},
		{"¿en qué se diferencian las dos tarifas, la básica y la pro?", true},
		{"nos diferenciamos por el servicio", false},
	} {
		if _, got := findingOf(t, "", c.text, fEval, false); got != c.want {
			t.Errorf("%q: evaluation %v, want %v", c.text, got, c.want)
		}
	}
}

// TestMoneyBackIsSupport: the money asked back, in every language, is
// about something already paid for.
func TestMoneyBackIsSupport(t *testing.T) {
	for _, text := range []string{
		"quiero que me devolváis el dinero de la matrícula",
		"quero que devolvam o dinheiro da inscrição",
		"remboursez-moi la différence, s'il vous plaît",
		"I just want my money back",
	} {
		if _, ok := findingOf(t, "", text, fSupport, false); !ok {
			t.Errorf("%q: not read as an existing customer's request", text)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{TierUnqualified, "V: quiero que me devolváis el dinero del curso de italiano, lo compré hace una semana|B: Dentro de los 14 días puedes pedir el reembolso.|V: vale, cómo lo pido|B: Dime tu correo y lo tramito.|V: ana.ruiz@mail.es"},
	})
}

// TestSlotInAShortSentence: a visitor who names an offered slot in a short
// sentence of its own took it, whatever else the turn says.
func TestSlotInAShortSentence(t *testing.T) {
	tr := convo("B: Frau Albers hätte Montag um 9:00 Uhr oder Dienstag um 11:30 Uhr Zeit.|V: Dienstag 11:30 Uhr. Ich bringe die Unterlagen vom alten Steuerberater gleich mit, dann können wir alles durchgehen.")
	a := analyse(Input{Transcript: tr})
	got := false
	for _, f := range a.findings {
		if f.f == fIntent && f.reading == "takes a slot the bot offered" {
			got = true
			if !strings.Contains(tr[1].Text, f.quote) {
				t.Errorf("slot quotes %q, not the visitor's words", f.quote)
			}
		}
	}
	if !got {
		t.Error("the slot named in a short sentence was not taken")
	}
	// A long sentence that merely mentions the day takes nothing.
	a = analyse(Input{Transcript: convo("B: Frau Albers hätte Montag um 9:00 Uhr oder Dienstag um 11:30 Uhr Zeit.|V: Am Dienstag um 11:30 Uhr habe ich leider schon einen anderen Termin beim Notar, das wird nichts.")})
	for _, f := range a.findings {
		if f.reading == "takes a slot the bot offered" {
			t.Error("a declined slot was read as taken")
		}
	}
}

// TestHindiNegatorBeforeVerb: Hindi puts "nahi" just before the verb it
// denies.
func TestHindiNegatorBeforeVerb(t *testing.T) {
	for _, text := range []string{"abhi koi demo nahi chahiye", "replacement nahi chahiye"} {
		if _, ok := findingOf(t, "", text, fNeed, true); !ok {
			t.Errorf("%q: need not denied", text)
		}
		if f, ok := findingOf(t, "", text, fNeed, false); ok {
			t.Errorf("%q: read as a need (%s)", text, f.reading)
		}
	}
	if _, ok := findingOf(t, "", "humein 20 seats ka plan chahiye", fNeed, false); !ok {
		t.Error("a plain need is no longer read")
	}
}

// TestAFewYearsIsYearsAway: "a few years" in every language defers the
// purchase.
func TestAFewYearsIsYearsAway(t *testing.T) {
	for _, text := range []string{
		"quem sabe daqui a uns anos",
		"bueno, quizás en unos años",
		"ce sera pour dans quelques années",
		"vielleicht in ein paar Jahren",
		"kuch saal mein dekhenge",
	} {
		f, ok := findingOf(t, "", text, fTimeline, false)
		if !ok || !yearsAway(&f) {
			t.Errorf("%q: not read as years away (%+v)", text, f)
		}
	}
}
