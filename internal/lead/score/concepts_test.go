package score

import "testing"

// The concept tables combine a language's verbs and nouns, so phrasings
// nobody wrote down still read; conditions still to be met do not.
func TestConceptTables(t *testing.T) {
	has := func(a *analysis, f facet, reading string) bool {
		for _, x := range a.findings {
			if x.f == f && !x.deny && x.reading == reading {
				return true
			}
		}
		return false
	}
	cases := []struct {
		text    string
		f       facet
		reading string
		want    bool
	}{
		{"The board approved the venue spend last week", fBudget, "budget approved", true},
		{"A verba de treinamento já está aprovada.", fBudget, "budget approved", true},
		{"Tengo el crédito preaprobado por el banco.", fBudget, "budget approved", true},
		{"Das Budget für die Schulung wurde freigegeben.", fBudget, "budget approved", true},
		{"I've got sign-off from our COO", fBudget, "approval obtained", true},
		{"The budget has to be approved by finance first", fBudget, "budget approved", false},
		{"Das Budget muss noch freigegeben werden.", fBudget, "budget approved", false},
		{"We have to get approval from the board", fBudget, "approval obtained", false},
		{"Tengo que pedir aprobación a mi jefe", fBudget, "approval obtained", false},
		{"¿Me podéis dar cita para el jueves?", fIntent, "asks for an appointment", true},
		{"Posso marcar uma consulta para sexta?", fIntent, "asks for an appointment", true},
		{"On peut venir visiter samedi ?", fIntent, "asks to visit", true},
		{"Können wir am Freitag vorbeikommen?", fIntent, "asks to visit", true},
		{"kal site visit kar sakte hai?", fIntent, "asks to visit", true},
		{"Et poser une option sur la date ?", fIntent, "reserves it", true},
		{"ok I'll take the package with 6 sessions", fIntent, "commits to buy", true},
		{"thoda time le lenge sochne ke liye", fIntent, "commits to buy", false},
		{"Ich sammle gerade Vergleichsangebote", fEval, "collects competing offers", true},
		{"je fais un comparatif avec deux autres prestataires", fEval, "collects competing offers", true},
		{"I used to work at another company", fEval, "asked elsewhere", false},
	}
	for _, c := range cases {
		if got := has(read("", c.text), c.f, c.reading); got != c.want {
			t.Errorf("%q: %s %q = %v, want %v", c.text, c.f, c.reading, got, c.want)
		}
	}
}

// Counts of things per period are workloads in every language, not money.
func TestCountPerPeriod(t *testing.T) {
	for _, s := range []string{"uns 3 mil pedidos por mês", "environ 1 500 colis par mois", "ca. 20 Paletten pro Woche", "around 400 tickets a week"} {
		a := read("", s)
		vol, money := false, false
		for _, f := range a.findings {
			vol = vol || (f.f == fMetrics && f.level >= 65)
			money = money || f.f == fBudget
		}
		if !vol || money {
			t.Errorf("%q: volume %v, money %v", s, vol, money)
		}
	}
}
