package score

import "testing"

// TestBotNotesBooking: a bot that writes the booking down ("Noted:
// Tuesday 3 pm", "Notiert: Freitag 9 Uhr", "Combinado: sexta de manhã",
// "c'est réservé pour jeudi 10h") confirms it, in every language; the
// same words without a day or an hour, or "réservé aux clients", book
// nobody.
func TestBotNotesBooking(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"sql", "V: our roof leaks over the kitchen, can someone look at it?|B: We can come Tuesday at 3 pm or Wednesday at 9 am.|V: I'd rather the earlier one, my husband works late|B: Noted: inspection Tuesday 3 pm at your address."},
		{"sql", "V: Hallo, wir brauchen eine neue Heizung, die alte ist 25 Jahre alt|B: Gern kommt ein Techniker zur Besichtigung. Passt Freitag?|V: ja, ab 9 geht, Adresse steht im Formular|B: Notiert: Besichtigung Freitag 9 Uhr."},
		{"sql", "V: oi, quero colocar aparelho nos dentes, meu sorriso me incomoda|B: Temos avaliação gratuita. Sexta ou sábado?|V: o primeiro dia, cedo, antes do trabalho|B: Combinado: sexta às 8h com a Dra. Luísa."},
		{"sql", "V: bonjour, il nous faut un traiteur pour 60 personnes en juin|B: Avec plaisir. Une dégustation au showroom ?|V: oui, avec ma collègue, plutôt en matinée|B: C'est réservé pour jeudi 10h."},
	})
	for _, c := range []struct{ lang, text string }{
		{"en", "Noted, I'll pass your address to the team."},
		{"fr", "Ce créneau est réservé aux clients du cabinet."},
		{"pt", "Combinado, qualquer dúvida é só chamar."},
		{"de", "Notiert: Ihre Kundennummer."},
	} {
		if botRoutes(c.text, c.lang)&routeBooked != 0 {
			t.Errorf("%q: read as a confirmed booking", c.text)
		}
	}
}

// TestMoneyIsNoProblem: "money is not the problem" in every language says
// the budget is there; the negation belongs to the money, so it denies no
// need and reports no fault.
func TestMoneyIsNoProblem(t *testing.T) {
	for _, s := range []string{"Money is not the problem.", "El dinero no es problema.", "O dinheiro não é problema.",
		"Le budget n'est pas un souci.", "Geld ist nicht das Problem.", "Budget spielt keine Rolle.", "Paisa koi issue nahi hai."} {
		a := read("", s)
		budget := false
		for _, f := range a.findings {
			if (f.f == fNeed || f.f == fPain) && f.deny || f.f == fProblem {
				t.Errorf("%q: read as %s %q", s, f.f, f.reading)
			}
			budget = budget || (f.f == fBudget && !f.deny && f.level >= 70)
		}
		if !budget {
			t.Errorf("%q: no budget read", s)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"sql", "V: Wir brauchen eine neue Website, die alte ist nicht mehr zeitgemäß. Ich bin die Inhaberin.|B: Gern. Ein Relaunch liegt meist bei 6.000–12.000 €.|V: Geld ist nicht das Problem, sie muss bis Ende März online sein."},
	})
}

// TestHowDoYouDiffer: asking how this business differs from another, or
// saying one is looking at alternatives or drawing up a comparison, is
// evaluation in every language; with the visitor's size or title it is
// at least mql.
func TestHowDoYouDiffer(t *testing.T) {
	for _, s := range []string{
		"¿En qué se diferencian de Holded?", "Qual a diferença de vocês pro Bling?", "Quelle différence avec Qonto ?",
		"Was ist bei euch anders als bei Personio?", "Zoho se kya alag hai aapka?",
		"Ich schaue mir gerade ein paar Alternativen an.", "Estou fazendo um comparativo entre três fornecedores.",
	} {
		found := false
		for _, f := range read("", s).findings {
			found = found || (f.f == fEval && f.level >= 55)
		}
		if !found {
			t.Errorf("%q: no evaluation read", s)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"mql", "V: somos 25 pessoas e queremos trocar o sistema de ponto|B: Nosso sistema faz ponto por app e reconhecimento facial.|V: qual a diferença de vocês pro Tangerino?"},
		{"mql", "V: Hallo, wir sind ein Steuerbüro mit 12 Leuten|B: Willkommen! Unser Portal ersetzt den Belegversand per Mail.|V: Was ist bei euch anders als bei DATEV Unternehmen online?"},
	})
}

// TestMoreTitles: an engineer, a buyer or a manager says who the visitor
// is in Spanish, Portuguese, French and German too (which makes an
// evaluation a fitting one); "cheffe de projet" is a project manager.
func TestMoreTitles(t *testing.T) {
	for _, c := range []struct {
		text string
		max  int
	}{
		{"Soy ingeniera de procesos en una planta de alimentos.", 40},
		{"Sou compradora de uma rede de farmácias.", 70},
		{"Je suis cheffe de projet dans une banque.", 55},
		{"Ich bin Ingenieurin bei einem Zulieferer.", 40},
	} {
		a := read("", c.text)
		level := 0
		for _, f := range a.findings {
			if f.f == fAuthority && !f.deny {
				level = max(level, f.level)
			}
		}
		if level == 0 || level > c.max {
			t.Errorf("%q: authority %d, want a title of at most %d", c.text, level, c.max)
		}
	}
}

// TestTicketOpened: a bot that states the number of the support case it
// opened was serving an existing customer, whatever urgency came with the
// request; a customer who then weighs buying more is a lead again.
func TestTicketOpened(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"unqualified", "V: app me invoice download nahi ho raha|B: Sorry! Maine ticket INV-40417 bana diya hai, team 2 ghante me call karegi.|V: ok jaldi please, aaj client ko bhejna hai"},
		{"unqualified", "V: o relatório mensal sumiu do painel|B: Chamado aberto (#55120). Nosso time retorna ainda hoje.|V: ok, aguardo o retorno, é urgente"},
		{"mql", "V: our last invoice shows the wrong VAT number|B: Sorry about that, I've opened ticket #30981 for billing.|V: thanks. separately, we're looking to move our other two stores onto your POS, about 40 staff in all. what would the multi-store plan cost?"},
	})
	if botRoutes("Your ticket will be answered within a day.", "en")&routeTicket != 0 {
		t.Error("a ticket without a number read as one opened")
	}
}

// TestLockedOut: being locked out of the product or shown an error code
// is a fault in the visitor's own words ("ich komm nicht mehr rein",
// "Lizenz ungültig", "código inválido"); "MBA student hu" is a student.
func TestLockedOut(t *testing.T) {
	for _, s := range []string{"ich komm nicht mehr in die App rein", "da steht Lizenz ungültig", "me sale código inválido", "le code est invalide"} {
		found := false
		for _, f := range read("", s).findings {
			found = found || f.f == fProblem
		}
		if !found {
			t.Errorf("%q: no fault read", s)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"unqualified", "V: hi ich komm nicht mehr in die Lern-App rein, da steht Zugang ungültig, Prüfung ist nächste Woche|B: Bitte melden Sie sich neu an.|V: geht nicht, ich komm morgen vorbei"},
		{"unqualified", "V: hello, BBA student hu, retail pe project kar rahi hu|B: Kya jaanna hai?|V: aapke stores ka monthly footfall kitna hai? 30 responses chahiye"},
	})
}

// TestSlotsOfferedWithoutAQuestion: a bot that names two slots as
// alternatives offers them, question mark or not; a visitor who takes one
// has booked. Opening hours joined by "and" offer nothing.
func TestSlotsOfferedWithoutAQuestion(t *testing.T) {
	for _, c := range []struct {
		text  string
		offer bool
	}{
		{"Wir hätten morgen 9:00 Uhr oder übermorgen 17:30 Uhr, auch per Video.", true},
		{"Tenemos el martes a las 10 h o el jueves a las 16 h.", true},
		{"On peut vous proposer lundi 14h ou mardi 9h.", true},
		{"Hay clases martes y jueves a las 19 h.", false},
		{"Samstags haben wir 9–14 Uhr geöffnet.", false},
	} {
		if got := len(offeredSlots(c.text, "")) > 0; got != c.offer {
			t.Errorf("%q: offers slots %v, want %v", c.text, got, c.offer)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"sql", "V: Hallo, mir wurde heute gekündigt, kann ich dagegen was machen?|B: Wir hätten morgen 9:00 Uhr oder übermorgen 17:30 Uhr, auch per Video.|V: morgen 9 Uhr vor Ort"},
	})
}

// TestWorksWithAndReferences: asking whether the business works with the
// visitor's tool or case, for its references, or for a spec sheet is
// evaluation in every language; with a business of their own, at least
// mql.
func TestWorksWithAndReferences(t *testing.T) {
	for _, s := range []string{"¿Trabajan con Holded?", "Vocês trabalham com Bling?", "Vous travaillez avec Sage ?", "Arbeitet ihr mit DATEV?",
		"aap Tally pe kaam karte ho?", "¿Tienen casos de clínicas dentales?", "Habt ihr Referenzen aus dem Handwerk?", "Can you send the datasheet?"} {
		found := false
		for _, f := range read("", s).findings {
			found = found || (f.f == fEval && f.level >= 50)
		}
		if !found {
			t.Errorf("%q: no evaluation read", s)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"mql", "V: hola, tenemos una tienda online de cosmética, unos 800 pedidos al mes|B: Automatizamos la atención postventa.|V: ¿trabajan con WooCommerce?"},
		{"mql", "V: we need 2 pallet wrappers for a new distribution centre|B: We have semi-automatic and fully automatic models.|V: send me the spec sheets for the automatic ones"},
	})
}

// TestNotThisPeriodDefers: denying the current period ("this isn't a
// project for this year", "no es para este año") refuses the present as
// "not now" does, so with a date a year away the purchase is deferred;
// "no deadline" refuses nothing.
func TestNotThisPeriodDefers(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"nurture", "V: We're a 300-person logistics firm on an old WMS. This isn't a project for this year.|B: Understood.|V: What would a company our size spend? I'm the COO; I'll circle back in a year or so."},
		{"mql", "V: Sou o CTO de uma startup, 12 engenheiros, estamos a ver alternativas ao Datadog.|B: Temos trial de 14 dias.|V: Não há prazo definido, é mais para comparar. Talvez mais tarde."},
	})
}

// TestDayOfMonth: a day written as a plain number after its article ("me
// vence el 30", "a audiência é dia 14", "livraison le 12") is a near date,
// as "on the 30th" is; a percentage, a count or a day with its month is
// not read this way.
func TestDayOfMonth(t *testing.T) {
	for _, c := range []struct {
		text string
		date bool
	}{
		{"la póliza me vence el 30 y no pienso renovar", true},
		{"a audiência é dia 14", true},
		{"livraison le 12, c'est possible ?", true},
		{"el 30 % de los pedidos", false},
		{"el 12 empleados", false},
	} {
		found := false
		for _, f := range read("", c.text).findings {
			found = found || (f.f == fTimeline && f.level >= 80)
		}
		if found != c.date {
			t.Errorf("%q: near date %v, want %v", c.text, found, c.date)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"sql", "V: tengo una panadería, 6 empleados. el seguro me vence el 30 y me lo suben un 40%|B: Comparamos 5 aseguradoras.|V: necesito precio ya, soy la dueña"},
	})
}

// TestHindiNeIsNotANegation: Hindi's "ne" marks who did something
// ("finance ne approve kar diya", "boss ne bola"); only French "ne" with
// its second word negates.
func TestHindiNeIsNotANegation(t *testing.T) {
	for _, c := range []struct {
		text string
		deny bool
	}{
		{"finance ne budget approve kar diya hai", false},
		{"nous n'avons pas de budget", true},
	} {
		denied := false
		for _, f := range read("", c.text).findings {
			denied = denied || f.deny
		}
		if denied != c.deny {
			t.Errorf("%q: a denial %v, want %v", c.text, denied, c.deny)
		}
	}
}

// TestTrialSession: a trial class, lesson or session asks for a trial in
// every language; with a price question over two turns, at least mql.
func TestTrialSession(t *testing.T) {
	for _, s := range []string{"me anoto a la clase de prueba", "posso fazer uma aula experimental?", "je peux faire un cours d'essai ?", "demo class mil sakti hai?", "can I join a trial lesson?"} {
		found := false
		for _, f := range read("", s).findings {
			found = found || (f.f == fEval && f.level >= 60)
		}
		if !found {
			t.Errorf("%q: no trial read", s)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{"mql", "V: oi, quanto custa a mensalidade do pilates?|B: R$ 320 por mês, duas vezes por semana.|V: nunca fiz, posso fazer uma aula experimental?"},
	})
}

// TestPurchaseApprovedChoiceLeft: management approving the purchase
// itself ("aprovou contratar", "approved hiring") is approved money, and
// "only the choice of provider is left" is evaluation; an approval still
// to come is neither.
func TestPurchaseApprovedChoiceLeft(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"sql", "V: Sou gerente de compras de uma rede de 8 lojas. A diretoria já aprovou contratar uma empresa de segurança, só falta escolher qual.|B: Podemos fazer uma visita técnica esta semana.|V: amanhã de manhã pode ser"},
	})
	for _, f := range read("", "the board needs to approve hiring an agency").findings {
		if f.reading == "purchase approved" {
			t.Error("an approval still to come read as obtained")
		}
	}
}
