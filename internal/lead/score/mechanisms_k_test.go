package score

import "testing"

// The set K round's mechanisms (testdata/README.md, "The set K round").
// Every sentence below is written for the test, in each language's
// everyday forms, not copied from a labelled set.

// routeCase is one bot sentence, its language and whether route k is read.
type routeCase struct {
	text, lang string
	want       bool
}

func checkRoute(t *testing.T, k route, cases []routeCase) {
	t.Helper()
	for _, c := range cases {
		if got := botRoutes(c.text, c.lang)&k != 0; got != c.want {
			t.Errorf("%q: route %b read %v, want %v", c.text, k, got, c.want)
		}
	}
}

// TestRefusalInPassiveForms: a refusal to share internal figures or
// contacts said in the passive, with "publish", or about contacts and
// figures in the plural, is a refusal in every language; the visitor's
// own data kept private still reassures, it refuses nothing.
func TestRefusalInPassiveForms(t *testing.T) {
	checkRoute(t, routeRefuse, []routeCase{
		{"Esses números não são divulgados, lamento.", "pt", true},
		{"Lo siento, esas cifras no se publican: no publicamos estadisticas de clientes.", "es", true},
		{"Ces données internes ne sont pas communiquées.", "fr", true},
		{"Umsatzzahlen werden nicht veröffentlicht.", "de", true},
		{"We don't publish retention figures.", "en", true},
		{"Não posso partilhar os contatos da equipa comercial.", "pt", true},
		{"Your data is never shared with third parties.", "en", false},
		{"Publicamos el menú cada lunes en la web.", "es", false},
	})
}

// TestProposalSentToInbox: a bot that tells the visitor to send their own
// proposal to an address, or names the team that handles partnership or
// supplier requests, sent a seller to its vendor inbox; the business
// sending its proposal to a buyer routes nobody.
func TestProposalSentToInbox(t *testing.T) {
	checkRoute(t, routeVendor, []routeCase{
		{"Pode enviar a sua proposta para compras@padaria.pt, obrigado.", "pt", true},
		{"Vous pouvez envoyer votre proposition à achats@garage.fr.", "fr", true},
		{"Puedes mandar la propuesta a hola@estudio.es y la revisamos.", "es", true},
		{"You can send your proposal to ops@clinic.com.", "en", true},
		{"Les demandes de partenariat sont gérées par notre équipe marketing.", "fr", true},
		{"Our events team will send the proposal to anna@corp.com by Friday.", "en", false},
		{"Um dos nossos consultores envia a proposta para o seu email até amanhã.", "pt", false},
		{"Je peux vous envoyer une proposition à jean@exemple.fr dès demain.", "fr", false},
	})
}

// TestEscalationIsSupportRoute: escalating or handing a case over to a
// support team, with German verbs that close the clause after the team,
// is a handoff to support; a team named without a handover is not.
func TestEscalationIsSupportRoute(t *testing.T) {
	checkRoute(t, routeSupport, []routeCase{
		{"Ich kann Ihre Reklamation gern an den Kundenservice eskalieren.", "de", true},
		{"Ich werde das an unser Serviceteam übergeben.", "de", true},
		{"Escalamos tu caso a soporte y te escriben hoy.", "es", true},
		{"Unser Kundenservice ist werktags bis 18 Uhr erreichbar.", "de", false},
	})
}

// TestMemberNumberIsReference: a bot asking for a member's number or ID
// asks for the reference of something already bought, in every language.
func TestMemberNumberIsReference(t *testing.T) {
	checkRoute(t, routeAsksRef, []routeCase{
		{"Could you share your member ID?", "en", true},
		{"¿Me das tu número de miembro?", "es", true},
		{"Quel est votre numéro de membre ?", "fr", true},
		{"Apna member ID bata dijiye.", "hi-en", true},
		{"Our members get 10% off every class.", "en", false},
	})
}

// TestYesToTheOneSlotOffered: a plain yes to a bot turn that offers one
// slot (a day, an hour, or both) takes it, in every language; a yes to a
// choice between two slots, to a service "24h/24", or to a turn with no
// slot takes none.
func TestYesToTheOneSlotOffered(t *testing.T) {
	for _, c := range []struct {
		bot, visitor string
		want         bool
	}{
		{"Our fitter can come Thursday at 10 am. Does that work?", "yes, perfect", true},
		{"Freitag um 14 Uhr ist noch frei. Soll ich den Termin eintragen?", "ja bitte, danke", true},
		{"Mañana a las 9:30 podemos verte. ¿Te apunto?", "sí porfa", true},
		{"Le technicien passe mardi à 8h. Je vous inscris ?", "oui parfait", true},
		{"Engineer Saturday ko 11 baje aa sakta hai. Theek hai?", "haan theek hai", true},
		{"Thursday at 10 am or Friday at 2 pm, which suits you?", "yes", false},
		{"We offer 24h/24 monitoring. Shall I send the brochure?", "yes please", false},
		{"Would you like our brochure?", "yes please", false},
	} {
		a := analyse(Input{Transcript: []Turn{{Role: RoleBot, Text: c.bot}, {Role: RoleVisitor, Text: c.visitor}}})
		got := false
		for _, f := range a.findings {
			if f.f == fIntent && f.reading == "takes the slot the bot offered" {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("%q → %q: slot taken %v, want %v", c.bot, c.visitor, got, c.want)
		}
	}
}
