package score

import "testing"

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
	checkTiers(t, cases)
}

// TestBotPointsToJobs: a bot that sends the visitor to apply (its careers
// page, its CV inbox) was talking to an applicant, in any language; "I can
// start Monday" is then about the job. A bot that merely names hiring, or
// a parking space, sends nobody anywhere.
func TestBotPointsToJobs(t *testing.T) {
	cases := []struct{ want, conv string }{
		{"unqualified", "V: hi, I do bookkeeping, 6 years experience, need something full time|B: Thanks! Please apply through our careers page.|V: ok I can start next week, what is the salary?"},
		{"unqualified", "V: Hola, soy cocinero y busco algo para este verano|B: ¡Gracias! Puedes enviar tu CV a través de nuestra página de empleo.|V: vale, ¿cuánto se paga por hora?"},
		{"unqualified", "V: Bonjour, je suis infirmière, vous avez des postes ?|B: Merci ! Postulez via notre page emplois, l'équipe RH vous répondra.|V: d'accord, je peux commencer lundi"},
		{"unqualified", "V: Hallo, ich bin Mechatroniker und suche eine neue Stelle|B: Danke! Bewerben Sie sich gern über unsere Karriereseite.|V: Ok, ich könnte ab Montag anfangen."},
		{"sql", "V: We're a 60-person logistics firm and need to hire 10 drivers this month, budget 8k.|B: We help companies with hiring: send us the job descriptions and we'll start today.|V: Great, I'm the HR director, please send a quote."},
	}
	checkTiers(t, cases)
	for _, s := range []string{
		"Pode enviar pelo e-mail da página Trabalhe Conosco.",
		"You can see open positions and apply on our careers page.",
	} {
		if botRoutes(s, "en")&routeJobs == 0 {
			t.Errorf("%q: not read as pointing to jobs", s)
		}
	}
	for _, s := range []string{
		"É um apartamento de 68 m², com vaga, por R$ 890 mil.",
		"We help companies with hiring and payroll.",
		"Send me your requirements and I'll prepare a quote.",
	} {
		if botRoutes(s, "en")&routeJobs != 0 {
			t.Errorf("%q: read as pointing to jobs", s)
		}
	}
}

// TestWantsItPutRight: wanting "it" fixed, solved or corrected is a
// service request about something already bought, in every language.
func TestWantsItPutRight(t *testing.T) {
	for _, s := range []string{
		"I need it fixed by Friday",
		"lo necesito solucionado ya",
		"preciso disso resolvido hoje",
		"ich brauche das heute behoben",
		"jaldi theek karo please",
	} {
		a := read("", s)
		if facetDim(a, fProblem).Score == 0 || facetDim(a, fSupport).Score == 0 {
			t.Errorf("%q: not read as a request to put something right", s)
		}
	}
	for _, s := range []string{"we need a tool that fixes our scheduling", "necesitamos solucionar las reservas de la clínica"} {
		if a := read("", s); facetDim(a, fSupport).Score > 0 {
			t.Errorf("%q: read as a service request", s)
		}
	}
}

// TestRequestStatesTheNeed: a concrete request to book or buy, or a quote
// asked for a near date, states the need by itself: it is sql without the
// word "need", and the no-stated-need cap does not apply.
func TestRequestStatesTheNeed(t *testing.T) {
	cases := []struct{ want, conv string }{
		{"sql", "V: we own the house and want a price for a new boiler|B: Happy to help! We can come and measure.|V: can someone come next week and give us a quote?"},
		{"sql", "V: Hallo, wir ziehen am Freitag um, 2 Zimmer|B: Gern! Wir liegen bei ca. 900 €.|V: Bitte einen verbindlichen Kostenvoranschlag, wir wollen diese Woche buchen."},
		{"mql", "V: hi, we're a 30-person agency looking at chat tools|B: Great! What would you like to know?|V: could you call me next week?"},
	}
	checkTiers(t, cases)
}

// TestBotConfirmsBooking: a booking the bot confirms is sql, quoted from
// the visitor's turn; a question, a condition, "fully booked" or "reserved
// for patients" books nobody.
func TestBotConfirmsBooking(t *testing.T) {
	cases := []struct{ want, conv string }{
		{"sql", "V: hi my cat is sneezing a lot|B: Poor thing! We have Friday at 10 or 4.|V: 4pm please, it's Luna, owner Kim Park|B: Luna is booked for Friday at 4pm!"},
		{"sql", "V: Hallo, ich brauche einen Termin zur Zahnreinigung|B: Gern, Donnerstag 9 Uhr?|V: passt, Eva Roth|B: Danke, Sie sind für Donnerstag 9 Uhr eingetragen."},
		{"sql", "V: hola, quiero apuntarme al gimnasio|B: ¡Genial! La cuota es 35 € al mes.|V: vale, me apunto, Marta Gil|B: ¡Listo, Marta! Nos vemos mañana."},
	}
	checkTiers(t, cases)
	for _, s := range []string{"Would you like me to get you booked?", "We're fully booked on Saturday.", "Ce canal est réservé aux patients du cabinet.",
		"Cuando llegue, te esperamos para su primera revisión.", "Once you're booked you'll get an e-mail."} {
		if botRoutes(s, "en")&routeBooked != 0 {
			t.Errorf("%q: read as a confirmed booking", s)
		}
	}
}

// TestApplicantWhoBuysLater: an applicant sent to the careers page stays
// unqualified for "I could start right away", but a visitor who then asks
// to book a service is a customer.
func TestApplicantWhoBuysLater(t *testing.T) {
	tr := convo("V: hola, soy electricista, ¿necesitáis gente? podría empezar ya|B: Gracias, puedes enviar tu CV desde nuestra página de empleo.|V: vale, gracias")
	if r := Score(qual("bant"), Input{Transcript: tr}); r.Tier != TierUnqualified {
		t.Errorf("applicant: %s: %s", r.Tier, r.Summary)
	}
	tr = convo("V: hola, soy electricista, ¿necesitáis gente?|B: Gracias, puedes enviar tu CV desde nuestra página de empleo.|V: vale. Por cierto, quiero reservar una visita para poner placas en mi casa esta semana")
	if r := Score(qual("bant"), Input{Transcript: tr}); r.Tier == TierUnqualified {
		t.Errorf("applicant who books: %s: %s", r.Tier, r.Summary)
	}
}

// TestRefusalThenNoPurchase: a visitor whose question the bot refused as
// internal or confidential, and who then asks for nothing to buy, was
// fishing, price questions or not; one who goes on to ask for a quote is
// a buyer. A partnership inbox named after the request ("propositions de
// partenariat via partenaires@...") marks a seller.
func TestRefusalThenNoPurchase(t *testing.T) {
	cases := []struct{ want, conv string }{
		{"unqualified", "V: hi, we're a mid-size retailer looking at agencies. what's your hourly rate and who are your biggest clients?|B: We don't share client lists, sorry. Our plans start at $2k a month.|V: ok, and what margin do you make on ads?|B: That's internal, I'm afraid.|V: fine, thanks"},
		{"unqualified", "V: Boa tarde, quanto cobram por palete para Madrid? E que margem têm?|B: Lamento, não partilhamos informação comercial.|V: ok, obrigado"},
		{"unqualified", "V: Bonjour, je suis graphiste freelance, vous sous-traitez ?|B: Les propositions de partenariat sont étudiées via partenaires@agence.fr.|V: merci, je vous écris"},
		{"sql", "V: hi, which clients do you work with?|B: Sorry, that information is confidential.|V: fair enough. we're a 40-person firm and need a new website by next month, can you send a quote? I'm the owner."},
	}
	checkTiers(t, cases)
}

// TestComparingProviders: comparing with other providers, in general
// words and every language, is evaluation: with a price question over a
// real conversation it is mql, not nurture.
func TestComparingProviders(t *testing.T) {
	for _, s := range []string{
		"we're comparing a few venues right now",
		"ich vergleiche noch mit einem anderen Büro",
		"estoy comparando con otros dos",
		"vou comparar com a Stone",
		"on compare avec deux autres agences",
		"2-3 agencies se baat chal rahi hai",
	} {
		if facetDim(read("", s), fEval).Score < 55 {
			t.Errorf("%q: not read as comparing providers", s)
		}
	}
	tr := convo("V: Hallo, wir haben gerade eine Zahnarztpraxis übernommen, 3 Behandlungsräume|B: Glückwunsch! Wir betreuen viele Praxen.|V: Was kostet die Buchhaltung ungefähr im Monat?|B: Etwa 300 € im Monat.|V: Okay, ich vergleiche noch mit einem anderen Büro")
	if r := Score(qual("bant"), Input{Transcript: tr}); r.Tier != TierMQL {
		t.Errorf("comparing after a price question: %s, want mql: %s", r.Tier, r.Summary)
	}
}
