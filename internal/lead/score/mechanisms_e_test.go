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
