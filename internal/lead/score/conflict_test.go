package score

import (
	"strings"
	"testing"
)

// The conflict rule (conflict.go). Every conversation below is written for
// the test, not copied from a labelled set.

func conflictScore(conv string) Result {
	return Score(qual("bant"), Input{Transcript: convo(conv)})
}

func byConflict(r Result) bool {
	return hasRule(r, RuleConflict) || hasRule(r, RuleConflictRouted)
}

// TestConflictLandsInNurture: a disqualifier reading and, in another turn of
// the visitor's own, an evaluation reading land in nurture, with the summary
// line that says so.
func TestConflictLandsInNurture(t *testing.T) {
	for _, conv := range []string{
		// An existing customer's invoice error, then a second company to add.
		"B: ¡Hola! ¿En qué te ayudo?|V: me sale un error al emitir una factura, no me deja guardarla|B: Revisa el NIF del cliente, suele ser eso.|V: ya, era eso. oye, vamos a abrir otra empresa con unas 600 facturas al mes. ¿se pueden separar los usuarios por empresa?|B: Sí, los permisos van por empresa.|V: vale, lo hablo con mi socio",
		// A parent comparing courses, whose "internship is a plus" reads as a job seeker's.
		"B: Olá! Em que posso ajudar?|V: meu filho está a escolher entre o vosso curso e o do ISCTE, qual é a propina anual?|B: São 3 200 € por ano, com estágio no 3.º ano.|V: o estágio no 3.º ano é um ponto forte. a candidatura é online?|B: Sim, com entrevista.|V: ok, ainda estamos a comparar, obrigado",
		// A bot that refused internal data, then a comparison and a price for a need.
		"B: Hello! How can I help?|V: which clients do you manage and what do you pay your designers?|B: We don't share client lists or staff pay.|V: ok. we need a new website for our bakery, comparing you with two other agencies. what would a five page site cost?|B: Sites like that start at 2,400.",
	} {
		r := conflictScore(conv)
		if r.Tier != TierNurture || !byConflict(r) {
			t.Errorf("%.60s: %s (%v), want nurture by the conflict rule: %s", conv, r.Tier, r.Overrides, r.Summary)
			continue
		}
		if !strings.Contains(r.Summary, "Two readings conflict") {
			t.Errorf("%.60s: the summary does not say so: %s", conv, r.Summary)
		}
		checkQuotes(t, conv[:20], convo(conv), r)
	}
}

// TestConflictNeedsBothReadings: one reading alone is settled as before.
func TestConflictNeedsBothReadings(t *testing.T) {
	for _, c := range []struct{ want, conv string }{
		// A support request alone stays unqualified.
		{TierUnqualified, "B: Hi, how can I help?|V: hi, we're customers and one of our agents can't log in, password rejected|B: They can reset it under Forgot password.|V: tried that, still locked out, please fix it"},
		// A job seeker alone stays unqualified.
		{TierUnqualified, "B: Hallo! Wie kann ich helfen?|V: Hallo, ich suche eine Stelle als Elektriker, stellt ihr ein?|B: Bewerbungen bitte über unsere Karriereseite.|V: danke, mache ich"},
	} {
		r := conflictScore(c.conv)
		if r.Tier != c.want || byConflict(r) {
			t.Errorf("%.60s: %s (%v), want %s without the conflict rule: %s", c.conv, r.Tier, r.Overrides, c.want, r.Summary)
		}
	}
}

// TestConflictKeepsExplicitEscapes: where the rules already settle the
// conflict for the purchase, they still do: a customer's request next to an
// evaluation the support rule reads (evaluatingNow), and a concrete request
// to book after the bot turned the visitor away (intentAfter).
func TestConflictKeepsExplicitEscapes(t *testing.T) {
	for _, conv := range []string{
		"B: Hi, how can I help?|V: hi, we're on your Basic plan. one of our managers gets an error when exporting payroll, it keeps failing|B: Please clear the cache and try again; if it fails, support can check the logs.|V: ok thanks. another thing, we're opening 3 new clinics and going from 40 to 95 staff. does the Business plan have single sign-on?|B: Yes, SSO is included in Business.|V: ok, I'll put it to our finance director, no date yet",
		"B: Hallo! Wie kann ich helfen?|V: bei uns kommt seit gestern ein Fehler beim Export der Lohnabrechnung|B: Bitte Cache leeren, sonst schaut der Support die Logs an.|V: ok danke. andere Frage: wir eröffnen zwei neue Filialen und wachsen von 30 auf 70 Mitarbeiter. kann der Business-Tarif mehrere Standorte?|B: Ja, Business kann mehrere Standorte.|V: gut, ich bespreche das mit unserem Geschäftsführer",
		"B: Hello! How can I help?|V: which clients do you manage and what do you pay your designers?|B: We don't share client lists or staff pay.|V: fair enough. we need a new website for our bakery by next month, I'm the owner. can we book a call tomorrow at 10 to get a quote?|B: Yes, tomorrow at 10 works.",
	} {
		r := conflictScore(conv)
		if byConflict(r) || (r.Tier != TierSQL && r.Tier != TierMQL) {
			t.Errorf("%.60s: %s (%v), want a purchase without the conflict rule: %s", conv, r.Tier, r.Overrides, r.Summary)
		}
	}
}
