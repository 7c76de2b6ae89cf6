package score

import (
	"testing"
)

// TestSellerTurnedAway: a seller the bot sends to a proposals inbox or
// whose meeting request it declines is unqualified, whatever budget or
// date they name; a buyer who keeps "your site" for later is not a pitch.
func TestSellerTurnedAway(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"unqualified", "V: Hola, somos una agencia de fotografía para hoteles, tenemos una promo de 500 € este mes|B: Gracias. Para propuestas comerciales escribe a compras@hotel.cl.|V: ¿puedo llamar al gerente mañana? tengo presupuesto para una sesión gratis"},
		{"unqualified", "V: Hi, I'm with BrightDesk, we help clinics cut no-shows by 30%, launch offer $990 until Friday|B: Thanks, but we don't take vendor meetings through this chat.|V: could I get 10 minutes with your practice manager this week?"},
		{"unqualified", "V: Guten Tag, wir haben Ihre Website analysiert und sehen viel Potenzial bei Google Ads.|B: Danke, kein Bedarf.|V: Schade, ich melde mich nächsten Monat nochmal."},
		{"nurture", "V: bonjour, mon père a 80 ans, on se pose des questions pour plus tard|B: Nos services commencent à 38 $ de l'heure.|V: ok merci, pas pour tout de suite, je garde votre site"},
	})
}

// TestGermanTrialCompounds: "Probetragen", "Probetraining" and the other
// Probe- compounds ask for a trial, which is evaluation, not a fault.
func TestGermanTrialCompounds(t *testing.T) {
	for _, s := range []string{"Gibt es die Möglichkeit zum Probetragen?", "Kann ich ein Probetraining machen?", "Bieten Sie eine Probestunde an?"} {
		a := read("", s)
		found := false
		for _, f := range a.findings {
			found = found || (f.f == fEval && f.level >= 55)
		}
		if !found {
			t.Errorf("%q: no trial request read", s)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"mql", "V: Hallo, mein Vater hört schlecht, es geht nicht mehr so. Gibt es die Möglichkeit zum Probetragen?|B: Ja, 2–3 Wochen kostenlos.|V: und was kostet ein Akku-Gerät?|B: Mit Zuzahlung 600–1.800 € pro Ohr.|V: danke, ich muss das erst mit ihm besprechen"},
	})
}

// TestNotADate: words that look like a date or a booking but are not one.
// "Since Q1" says how long a problem has lasted; "a la mañana" and "am
// Morgen" are a time of day; "sous réserve d'approbation" is a condition,
// not a reservation; "we haven't set a timeline" is no date at all.
func TestNotADate(t *testing.T) {
	for _, c := range []struct {
		text     string
		maxLevel int
	}{
		{"our ROAS has tanked since Q1", 0},
		{"die Buchungen sind seit März eingebrochen", 0},
		{"les ventes baissent depuis janvier", 0},
		{"yo nado a la mañana temprano", 0},
		{"ich trainiere jeden Morgen vor der Arbeit", 0},
		{"my boss makes the final call and we havent set a timeline", 15},
		{"abhi koi date fix nahi hai", 15},
		{"on n'a pas de date encore", 15},
	} {
		a := read("", c.text)
		for _, f := range a.findings {
			if f.f == fTimeline && !f.deny && f.level > c.maxLevel {
				t.Errorf("%q: timeline %d (%s), want at most %d", c.text, f.level, f.reading, c.maxLevel)
			}
		}
	}
	// The same words still date a purchase where they should.
	for _, s := range []string{"we need it by Q3", "necesito la cita mañana", "können Sie morgen kommen?"} {
		a := read("", s)
		found := false
		for _, f := range a.findings {
			found = found || (f.f == fTimeline && !f.deny && f.level >= 60)
		}
		if !found {
			t.Errorf("%q: no timeline read", s)
		}
	}
	if got := botRoutes("On a présentement 4,49 % sur 60 mois, sous réserve d'approbation.", "fr"); got&routeBooked != 0 {
		t.Errorf("sous réserve read as a booking")
	}
}

// TestApplicantAndRivalWords: what only an applicant says (the pay they
// expect, the interview, whether the position is still open) and a rival
// studying "how you do it" disqualify in every language; a contract's
// notice period ("Kündigungsfrist") is a buyer's deadline, not a job.
func TestApplicantAndRivalWords(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"unqualified", "V: hallo, ist die stelle als disponent noch frei?|B: Ja, bitte bewerben Sie sich über das Portal.|V: meine gehaltsvorstellung wären 48.000, budget ist da?"},
		{"unqualified", "V: hi, is the position still open? my salary expectation is 60k and I can start next month"},
		{"unqualified", "V: hola, cuánto le pagan a los profes?|B: No compartimos datos internos.|V: es que tengo una academia y quería ver cómo lo hacen ustedes"},
		{"unqualified", "V: bonjour, je voulais voir comment vous faites pour vos plannings, j'ai un cabinet aussi|B: Ces informations sont internes, je ne peux pas les partager.|V: dommage"},
		{"sql", "V: Wir sind ein Dachdeckerbetrieb mit 14 Mitarbeitern, ich bin der Chef. Unsere Haftpflicht läuft zum 1. Juli aus.|B: Soll ein Berater ein Angebot erstellen?|V: Ja, ich brauch das innerhalb von 14 Tagen wegen der Kündigungsfrist."},
	})
}

// TestQuoteSoonStatesTheNeed: a quote asked for a near date states the
// need for the no-stated-need cap as it does for the buying signals: an
// approved budget, a date and "send me an offer by Friday" is sql without
// naming a problem.
func TestQuoteSoonStatesTheNeed(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"sql", "V: Wir planen ein Offsite im Juni, 45 Personen.|B: Gerne, das passt.|V: Das Budget ist von der GF freigegeben, ca. 30.000 €. Könnten Sie mir bis Freitag ein Angebot schicken?"},
		{"sql", "V: un evento de empresa, 80 personas, el viernes 12 del próximo mes|B: Está disponible.|V: mi gerenta ya aprobó el presupuesto de 12 millones. ¿me mandas cotización esta semana?"},
	})
}

// TestTakesOfferedSlot: a visitor who answers the bot's offered slots with
// one of them has booked, in any language; a question, a no, or a day the
// bot did not offer is not a booking.
func TestTakesOfferedSlot(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"sql", "V: je voudrais un nettoyage pis un blanchiment avant le mariage de ma soeur|B: Oui, mercredi 8 h 30 ou vendredi 13 h avec Dre Gagnon. Lequel vous convient ?|V: mercredi 8h30 svp"},
		{"sql", "V: sou coordenadora de RH numa rede de farmácias, 180 colaboradores, o eSocial dá erro todo mês|B: Quinta às 10h funciona?|V: 10h perfeito"},
		{"sql", "V: my back has been hurting for two weeks|B: We have Thursday 1pm or Friday 9am, which works?|V: Thursday 1pm."},
	})
	for _, c := range []struct {
		bot, visitor string
		want         bool
	}{
		{"Mittwoch 10 Uhr oder Donnerstag 14 Uhr?", "Donnerstag 14 Uhr passt.", true},
		{"¿Te va bien el jueves a las 16:00?", "a las 16:00.", true},
		{"kal 11 baje ya 3 PM?", "3 PM.", true},
		{"Wednesday 8:30 or Friday 1pm, which suits you?", "neither, sorry", false},
		{"Wednesday 8:30 or Friday 1pm, which suits you?", "is Friday 1pm free?", false},
		{"Wednesday 8:30 or Friday 1pm, which suits you?", "Monday would be better", false},
		{"We're open Monday to Friday, 9am to 6pm.", "monday", false},
	} {
		a := analyse(Input{Transcript: []Turn{{Role: RoleVisitor, Text: "hi"}, {Role: RoleBot, Text: c.bot}, {Role: RoleVisitor, Text: c.visitor}}})
		got := false
		for _, f := range a.findings {
			got = got || f.reading == "takes a slot the bot offered"
		}
		if got != c.want {
			t.Errorf("%q → %q: took the slot %v, want %v", c.bot, c.visitor, got, c.want)
		}
	}
}

// TestTalkingToOthers: comparing with others of the same trade, whatever
// the trade is called ("talking to a few architects", "allen me bhi baat
// ki hai", "je magasine"), is evaluation; so is a financing question in
// every language.
func TestTalkingToOthers(t *testing.T) {
	for _, s := range []string{
		"we're doing a rear extension, talking to a few architects.",
		"we're seeing two other firms, will decide after",
		"allen me bhi baat ki hai, unka batch size bada hai",
		"salut je magasine un VUS hybride",
		"estamos hablando con otras dos academias",
		"theres also a place near my work, trying to decide",
	} {
		a := read("", s)
		found := false
		for _, f := range a.findings {
			found = found || (f.f == fEval && f.level >= 55)
		}
		if !found {
			t.Errorf("%q: no comparison read", s)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"mql", "V: le Tucson hybride vs le RAV4, c'est quoi la diff?|B: Le Tucson a plus de puissance.|V: pis le taux de financement en ce moment?|B: 4,49 % sur 60 mois.|V: ok merci, je continue de magasiner"},
		{"mql", "V: my knee is killing me on long runs|B: Our sports physios can help.|V: do you take aetna? theres also a place near my work, trying to decide"},
	})
}

// TestNeedAndQuestions: a stated need and questions about the offering in
// two or more turns is evaluation, at least mql, whatever the questions
// are about; one question, or a need with no questions, is not.
func TestNeedAndQuestions(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"mql", "V: hallo, ich brauche ein B2 zertifikat für die einbürgerung|B: Wir empfehlen den Kurs B1.1.|V: gibt es abendkurse?|B: Ja, Mo + Mi.|V: und die prüfung macht ihr auch?|B: Ja.|V: ok danke, ich melde mich"},
		{"mql", "V: somos una startup de 6 y queremos juntarnos en una oficina|B: Un despacho para 6 cuesta 1.350 €/mes.|V: las salas de reuniones se pagan aparte?|B: Incluyen 8 horas.|V: y se puede domiciliar la sociedad?|B: Sí.|V: vale, lo hablamos entre los socios"},
		{"nurture", "V: I need a new website for my bakery, maybe in a couple of years|B: Happy to help when the time comes.|V: do you do logos too?|B: Yes.|V: and hosting?"},
	})
}

// TestDeferred: "not now" with a year or more (or "later") is at most
// nurture in every language; a far-off date without "not now" keeps its
// tier (writers label "we'll see next year" mql as often as nurture), and
// "agora não funciona" is a fault, not "not now".
func TestDeferred(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"nurture", "V: unsere ölheizung ist 24 jahre alt, wir wollen auf wärmepumpe umsteigen|B: Das kostet nach Förderung ca. 10.000–18.000 €.|V: wir warten doch bis nächstes jahr, sorry"},
		{"nurture", "V: L shape sofa chahiye, grey colour me|B: ₹62,000 me hai.|V: nice, showroom me dekh sakte hai?|B: Zaroor.|V: nahi abhi nahi, next year naye flat me shift hone ke baad hi lenge"},
		{"nurture", "V: oi, MBA executivo, quanto custa?|B: R$ 58.000.|V: sou gerente de loja, queria crescer na empresa, mas agora não dá, quem sabe em uns dois anos"},
		{"nurture", "V: on cherche une salle pour 200 personnes|B: Nous avons la grande salle.|V: Mais pas avant l'année prochaine, on attend la confirmation"},
	})
	for _, s := range []string{"agora não funciona, preciso que resolvam", "ahora no funciona la app"} {
		for _, f := range read("", s).findings {
			if f.reading == readNotNow {
				t.Errorf("%q read as not now", s)
			}
		}
	}
}

// TestJustAnIdea: "bas idea chahiye tha" is just browsing, not a need;
// "4-5 saal baad" is years away.
func TestJustAnIdea(t *testing.T) {
	a := read("", "ok husband se baat karungi. bas idea chahiye tha")
	denied := false
	for _, f := range a.findings {
		denied = denied || (f.f == fNeed && f.deny && f.engage)
	}
	if !denied {
		t.Errorf("'bas idea chahiye tha' not read as just browsing")
	}
	for _, f := range read("", "beti ki shaadi 4-5 saal baad hai").findings {
		if f.f == fTimeline && f.level > 25 {
			t.Errorf("'4-5 saal baad' read as %d (%s)", f.level, f.reading)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"nurture", "V: beti ki shaadi 4-5 saal baad hai, kya abhi se gold lena chahiye?|B: Gold Saving Scheme hai.|V: scheme ka minimum kitna hai?|B: ₹2,000/month.|V: ok abhi socha nahi hai pakka, husband se baat karungi. bas idea chahiye tha"},
	})
}

// TestWantedToKnow: "quería saber", "I wanted to know" announce a
// question, not a need; "só queria saber" is just browsing (a longer
// phrase keeps its own reading over a suppress rule inside it).
func TestWantedToKnow(t *testing.T) {
	for _, s := range []string{"hola, quería saber cómo es el proceso de admisión", "hi, I wanted to know how the admission works", "je voulais savoir vos horaires"} {
		for _, f := range read("", s).findings {
			if f.f == fNeed && !f.deny && f.level >= 60 {
				t.Errorf("%q read as a need (%s)", s, f.reading)
			}
		}
	}
	browsing := false
	for _, f := range read("Quer agendar?", "não, só queria saber mesmo").findings {
		browsing = browsing || (f.f == fNeed && f.deny && f.engage)
	}
	if !browsing {
		t.Errorf("'só queria saber' not read as just browsing")
	}
	checkTiers(t, []struct{ want, conv string }{
		{"nurture", "V: hola, mi bebé tiene un año y quería saber cómo es el proceso de admisión|B: Las admisiones abren en agosto.|V: ah ok, entonces falta. y cuánto vale la pensión|B: $2.100.000 mensuales.|V: listo, gracias"},
		{"nurture", "V: vcs fazem harmonização facial?|B: Fazemos sim! Quer agendar?|V: não, só queria saber mesmo. nada pra agora"},
	})
}
