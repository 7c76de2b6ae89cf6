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

// TestRefusalInConjugatedForms: a bot that will not give internal figures
// says so in each language's conjugated forms; a bot that gladly informs,
// or declines something other than information, refuses nothing.
func TestRefusalInConjugatedForms(t *testing.T) {
	for _, c := range []struct {
		text, lang string
		want       bool
	}{
		{"Zu Honoraren unserer Übersetzer geben wir keine Auskunft.", "de", true},
		{"No facilitamos datos de otros clientes.", "es", true},
		{"Não passamos essas informações por aqui.", "pt", true},
		{"Nous ne communiquons pas ces chiffres.", "fr", true},
		{"Não divulgamos a carteira de clientes.", "pt", true},
		{"Wir geben Ihnen gerne Auskunft zu unseren Preisen.", "de", false},
		{"No damos clases los domingos.", "es", false},
	} {
		if got := botRoutes(c.text, c.lang)&routeRefuse != 0; got != c.want {
			t.Errorf("%q: refusal %v, want %v", c.text, got, c.want)
		}
	}
}

// TestSpokenGermanNeed: "brauch ich", "ich brauch" and the subjunctive
// "wir bräuchten" state a need; "brauch ich nich" does not.
func TestSpokenGermanNeed(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"nach der OP brauch ich ja Reha", true},
		{"ich brauch so schnell wie möglich einen Termin", true},
		{"wir bräuchten den Raum ab dem 1. März", true},
		{"Finanzierung brauch ich nich, ich zahle bar", false},
	} {
		if _, got := findingOf(t, "", c.text, fNeed, false); got != c.want {
			t.Errorf("%q: need %v, want %v", c.text, got, c.want)
		}
	}
}

// TestContractRunningOutIsNoSupport: the visitor's contract running out
// is the current provider's, a date to switch, not a request about
// something bought here; their contract named otherwise still is.
func TestContractRunningOutIsNoSupport(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"vielleicht schau ich mir euch an, wenn unser Vertrag irgendwann ausläuft", false},
		{"nuestro contrato con el proveedor actual vence en marzo", false},
		{"our contract with the current vendor ends June 30", false},
		{"mein Vertrag wurde doppelt abgebucht", true},
		{"quiero cancelar mi contrato", true},
	} {
		if _, got := findingOf(t, "", c.text, fSupport, false); got != c.want {
			t.Errorf("%q: existing customer %v, want %v", c.text, got, c.want)
		}
	}
}

// TestYesToOfferedTrial: a yes to a free trial, study or evaluation the bot
// offered is a step of evaluation; a yes to a case study (content) or to
// an offer put off ("cuando lo tengas claro...") is not.
func TestYesToOfferedTrial(t *testing.T) {
	for _, c := range []struct {
		conv string
		want bool
	}{
		{"B: Je peux vous envoyer une étude de faisabilité gratuite à partir de vos factures.|V: Oui, volontiers.", true},
		{"B: Chaho toh free profile evaluation karwa sakte ho.|V: haan kar do", true},
		{"B: ¿Quiere una semana de prueba para su equipo?|V: sí, para 5 personas", true},
		{"B: Would you like our real estate case study?|V: Yes, send it to my email.", false},
		{"B: We have a free newsletter every month.|V: yes", false},
		{"B: Cuando lo tengas claro, te hacemos una prueba de nivel gratis.|V: vale, ya volveré", false},
	} {
		a := analyse(Input{Transcript: convo(c.conv)})
		got := false
		for _, f := range a.findings {
			if f.f == fEval && f.reading == "takes the trial or study offered" {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("%q: trial taken %v, want %v", c.conv, got, c.want)
		}
	}
}

// TestRivalPriceTold: a rival's price told ("ek aur agency ne 60k bola
// hai", "Bench quoted me $299") compares offers; what someone else said
// without a price does not.
func TestRivalPriceTold(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"ek dusre vendor ne 30k bola tha but sirf 3 months", true},
		{"Regus wale 9k per seat bata rahe the", true},
		{"the other agency quoted me 4,000 for the same", true},
		{"dentist ne bola tha molar mein infection hai", false},
		{"sales wale ne bola tha kabhi bhi refund mil jayega", false},
	} {
		if _, got := findingOf(t, "", c.text, fEval, false); got != c.want {
			t.Errorf("%q: evaluation %v, want %v", c.text, got, c.want)
		}
	}
}

// TestVendorInboxWords: a bot that sends proposals to a contact form,
// sponsorship requests to its management, or says its channel is for
// patients, took the visitor for someone selling or asking, not buying.
func TestVendorInboxWords(t *testing.T) {
	for _, c := range []struct {
		text, lang string
		want       route
	}{
		{"For vendor proposals, please use the general contact form.", "en", routeVendor},
		{"Las solicitudes de patrocinio las evalúa la dirección; puede enviarlas al correo institucional.", "es", routeVendor},
		{"Las propuestas comerciales se reciben en el correo de compras.", "es", routeVendor},
		{"Este canal es para atención de pacientes.", "es", routeNotForYou},
		{"Our suppliers are all based in Europe.", "en", 0},
		{"Puede rellenar el formulario de contacto para pedir cita.", "es", 0},
	} {
		got := botRoutes(c.text, c.lang) & (routeVendor | routeNotForYou)
		if got != c.want {
			t.Errorf("%q: route %b, want %b", c.text, got, c.want)
		}
	}
}

// TestThesisWords: the names of a thesis or of research for a degree in
// the other languages are student work.
func TestThesisWords(t *testing.T) {
	for _, text := range []string{
		"estoy haciendo mi trabajo de grado sobre software en pymes",
		"es para mi tesina de la maestría",
		"c'est vraiment pour la fac",
		"hätten Sie Zeit für ein kurzes Experteninterview?",
	} {
		if _, ok := findingOf(t, "", text, fStudent, false); !ok {
			t.Errorf("%q: not read as student work", text)
		}
	}
}

// TestLimitedOfferIsPitch: a limited offer the visitor announces is a
// seller's pitch, and material the visitor sends is not material asked
// for; a buyer's question about price lists is neither.
func TestLimitedOfferIsPitch(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"oferta especial: 10 enlaces por solo 149 €, válida hasta el domingo", true},
		{"Sonderpreis nur diese Woche: 299 € für 10 Gastartikel", true},
		{"promoção válida só até sexta-feira!", true},
		{"special offer only $99 for 50 backlinks", true},
		{"our wholesale customers have special price lists, does that carry over?", false},
	} {
		if _, got := findingOf(t, "", c.text, fSpamWeak, false); got != c.want {
			t.Errorf("%q: vendor pitch %v, want %v", c.text, got, c.want)
		}
	}
	if f, ok := findingOf(t, "", "je vous envoie quand même la plaquette", fEval, false); ok {
		t.Errorf("material the visitor sends read as evaluation (%s)", f.reading)
	}
	if _, ok := findingOf(t, "", "vous pouvez m'envoyer la plaquette ?", fEval, false); !ok {
		t.Error("material asked for is no longer read")
	}
	checkTiers(t, []struct{ want, conv string }{
		{TierUnqualified, "B: Bonjour, souhaitez-vous prendre rendez-vous ?|V: Bonjour ! Je propose du netlinking : 10 articles sponsorisés sur des blogs santé.|B: Merci, mais ce chat est réservé aux patients.|V: offre spéciale à 249 € au lieu de 500 €, valable jusqu'à vendredi. Qui gère le site ?|B: Nous ne donnons pas suite aux démarchages par ce canal.|V: je vous envoie quand même la plaquette"},
	})
}

// TestHowYouSetItUpIsFishing: wanting to see how the business sets itself
// up is a rival's question, not a need.
func TestHowYouSetItUpIsFishing(t *testing.T) {
	for _, text := range []string{
		"tengo una academia y quería ver cómo lo montáis vosotros",
		"queria perceber como vocês organizam as rotas",
		"je voulais comprendre comment vous gérez les plannings",
	} {
		if _, ok := findingOf(t, "", text, fFishing, false); !ok {
			t.Errorf("%q: not read as fishing", text)
		}
		if f, ok := findingOf(t, "", text, fNeed, false); ok {
			t.Errorf("%q: read as a need (%s)", text, f.reading)
		}
	}
}

// TestFeeNeverSentIsSupport: a fee of one's own and something owed never
// sent make a billing request, not a purchase.
func TestFeeNeverSentIsSupport(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{TierUnqualified, "B: ¡Hola! ¿En qué te ayudo?|V: necesito la factura de mi mensualidad de septiembre, no me la mandaron|B: Puedes generarla en la app con tu RFC.|V: ok, y hasta cuándo puedo pedirla?|B: Hasta el último día del mes en curso."},
	})
	for _, text := range []string{"ainda não recebi o recibo", "je n'ai jamais reçu la facture, pas reçu", "die Rechnung habe ich nie erhalten"} {
		if _, ok := findingOf(t, "", text, fProblem, false); !ok {
			t.Errorf("%q: not read as a problem", text)
		}
	}
}

// TestDaquiLeadsATimeline: "daqui 2 anos", "d'ici deux ans", "de aquí a
// dos años" are relative dates; two years off is years away.
func TestDaquiLeadsATimeline(t *testing.T) {
	for _, text := range []string{"blz. daqui 2 anos eu volto", "on verra d'ici deux ans", "de aquí a dos años, quizás"} {
		f, ok := findingOf(t, "", text, fTimeline, false)
		if !ok || !yearsAway(&f) {
			t.Errorf("%q: not read as years away (%+v)", text, f)
		}
	}
	if f, ok := findingOf(t, "", "daqui 2 semanas já precisamos disso", fTimeline, false); !ok || f.level < 90 {
		t.Errorf("two weeks from now read as %+v", f)
	}
}

// TestBusinessAskedToCome: asking the business to come by, or for a call
// in the Brazilian "consegue" form, is a request to meet.
func TestBusinessAskedToCome(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Wann könnt ihr vorbeikommen?", true},
		{"könnte jemand nächste Woche vorbeikommen und das Dach anschauen?", true},
		{"consegue uma call essa semana ainda?", true},
		{"consegue visita ainda esse mês?", true},
		{"consegue me explicar o plano anual?", false},
	} {
		f, ok := findingOf(t, "", c.text, fIntent, false)
		if got := ok && f.level >= 75; got != c.want {
			t.Errorf("%q: request to meet %v, want %v", c.text, got, c.want)
		}
	}
}

// TestOverwhelmedIsPain: "no llego a todo", "não dou conta", "wir kommen
// nicht hinterher" are a pain of the visitor's own, not a parcel that did
// not arrive.
func TestOverwhelmedIsPain(t *testing.T) {
	for _, text := range []string{
		"Instagram lo llevo yo pero no llego a todo",
		"com dois filhos não dou conta",
		"wir kommen mit den Anfragen nicht hinterher",
	} {
		if _, ok := findingOf(t, "", text, fPain, false); !ok {
			t.Errorf("%q: not read as pain", text)
		}
		if _, ok := findingOf(t, "", text, fProblem, false); ok {
			t.Errorf("%q: read as a fault of something bought", text)
		}
	}
	if _, ok := findingOf(t, "", "el pedido no llegó todavía", fProblem, false); !ok {
		t.Error("a parcel that did not arrive is no longer a problem")
	}
}

// TestContractWithCurrentProvider: a contract with the current provider,
// still running, is no support request either.
func TestContractWithCurrentProvider(t *testing.T) {
	for _, text := range []string{
		"Unser Vertrag mit der jetzigen Firma läuft noch",
		"el contrato con el proveedor actual dura hasta diciembre",
	} {
		if _, ok := findingOf(t, "", text, fSupport, false); ok {
			t.Errorf("%q: read as an existing customer", text)
		}
	}
}

// TestGermanPiecesAndVagueDates: "Stück" counted is pieces, not English
// "stuck"; "irgendwann im Herbst" is a vague date, not "later".
func TestGermanPiecesAndVagueDates(t *testing.T) {
	for _, text := range []string{"wären bei uns so ca 8 Stück", "ab 500 Stück bitte"} {
		for _, f := range []facet{fProblem, fPain} {
			if x, ok := findingOf(t, "", text, f, false); ok {
				t.Errorf("%q: read as %s (%s)", text, f, x.reading)
			}
		}
	}
	if _, ok := findingOf(t, "", "our order is stuck in customs", fProblem, false); !ok {
		t.Error("English 'stuck' is no longer a problem")
	}
	if f, ok := findingOf(t, "", "Irgendwann im Herbst, genaues Datum steht noch nicht.", fTimeline, false); ok && f.reading == "later" {
		t.Error("'irgendwann im Herbst' read as later")
	}
	if f, ok := findingOf(t, "", "das machen wir irgendwann", fTimeline, false); !ok || f.reading != "later" {
		t.Errorf("'irgendwann' alone no longer later: %+v", f)
	}
}

// TestYearAfterNext: "übernächstes Jahr", "the year after next" are years
// away; "übernächsten Monat" is not.
func TestYearAfterNext(t *testing.T) {
	for _, text := range []string{"konkret passiert frühestens übernächstes Jahr etwas", "probably the year after next"} {
		f, ok := findingOf(t, "", text, fTimeline, false)
		if !ok || !yearsAway(&f) {
			t.Errorf("%q: not years away (%+v)", text, f)
		}
	}
	if f, ok := findingOf(t, "", "wir ziehen am 1. des übernächsten Monats ein", fTimeline, false); ok && yearsAway(&f) {
		t.Error("the month after next read as years away")
	}
}

// TestICanStartIsNoPurchase: "I can start Monday" is an applicant's
// availability; with the bot's careers pointer it is a job seeker's.
func TestICanStartIsNoPurchase(t *testing.T) {
	for _, text := range []string{"puedo empezar el lunes", "posso começar segunda", "je peux commencer tout de suite", "I can start on the 1st"} {
		if f, ok := findingOf(t, "", text, fIntent, false); ok {
			t.Errorf("%q: read as %s", text, f.reading)
		}
	}
	checkTiers(t, []struct{ want, conv string }{
		{TierUnqualified, "B: ¡Hola! ¿Quieres pedir cita?|V: hola, soy auxiliar de enfermería y quería saber si buscáis personal|B: Puedes enviar tu CV a rrhh@clinica.es o ver las ofertas en /trabaja-con-nosotros.|V: vale, mi presupuesto mínimo son 1.600 € al mes|B: Indícalo en tu candidatura.|V: ok, también puedo empezar ya mismo, el lunes si hace falta"},
	})
}

// TestGermanPriceByAmountOrBilling: the price asked by its amount or its
// billing is a price question; a rival's margin asked is not.
func TestGermanPriceByAmountOrBilling(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"wie hoch ist das Schulgeld bei Ihnen?", true},
		{"wie rechnet ihr ab, pro Stunde?", true},
		{"wie funktioniert das abrechnungstechnisch?", true},
		{"und wie hoch ist eure Marge?", false},
	} {
		f, ok := findingOf(t, "", c.text, fIntent, false)
		if got := ok && f.reading == "asks the price"; got != c.want {
			t.Errorf("%q: price question %v, want %v", c.text, got, c.want)
		}
	}
	if _, ok := findingOf(t, "", "können Sie mir Infomaterial schicken?", fEval, false); !ok {
		t.Error("Infomaterial asked for is not read")
	}
}

// TestFreeSlotsJoinedByAnd: slots the bot says are free, joined by "and",
// are offered; opening hours are not.
func TestFreeSlotsJoinedByAnd(t *testing.T) {
	if got := offeredSlots("Este sábado tenemos libre a las 10:00 y a las 12:30 con el Dr. Salinas.", "es"); !got["h10"] {
		t.Errorf("free slots not offered: %v", got)
	}
	if got := offeredSlots("Our classes run Tuesday and Thursday at 7 pm.", "en"); got != nil {
		t.Errorf("opening hours read as offered slots: %v", got)
	}
	checkTiers(t, []struct{ want, conv string }{
		{TierSQL, "V: hola quiero blanquearme los dientes, tengo 6 mil pesos para eso|B: ¡Claro! El blanqueamiento cuesta $4,500 MXN.|V: va, ¿tienen lugar este sábado?|B: Este sábado tenemos a las 10:00 y a las 12:30 con la Dra. Ruiz.|V: 12:30 porfa, me llamo Ana Gómez"},
	})
}

// TestComparingAndAskingIsEvaluating: comparing vendors and asking about
// the offering in two or more turns is evaluation, whatever need was put
// in words; a comparison followed by "a year from now" is not.
func TestComparingAndAskingIsEvaluating(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{TierMQL, "B: Bonjour, comment puis-je vous aider ?|V: Bonjour, je compare plusieurs agences.|B: Avec plaisir. Nous faisons des sites vitrines et e-commerce.|V: vous travaillez avec WordPress ou Shopify ?|B: Les deux.|V: et le délai habituel pour un site de 10 pages ?|B: Environ 6 semaines."},
	})
	a := analyse(Input{Transcript: convo("V: je compare plusieurs agences|B: Avec plaisir.|V: vous travaillez avec Shopify ?|B: Oui.|V: et le délai habituel ?|B: Six semaines.")})
	if _, ok := evaluating(a); !ok {
		t.Error("a comparison and questions in two turns is not evaluating")
	}
	a = analyse(Input{Transcript: convo("V: je compare plusieurs agences|B: Avec plaisir.|V: vous travaillez avec Shopify ?|B: Oui.|V: et le délai habituel ? de toute façon ce sera dans quelques années|B: Six semaines.")})
	if _, ok := evaluating(a); ok {
		t.Error("a comparison years away read as evaluating now")
	}
}

// TestOfferInAStatement: a demo or a visit offered in a statement ("Je
// vous propose une démo personnalisée") is taken by a yes or a time, as a
// question would be.
func TestOfferInAStatement(t *testing.T) {
	for _, c := range []struct {
		conv string
		want bool
	}{
		{"B: Je vous propose une démo personnalisée avec un architecte solution.|V: oui. semaine prochaine, idéalement mardi", true},
		{"B: Le propongo una visita a la obra con nuestro técnico.|V: sí, el jueves por la mañana", true},
		{"B: Unser Team arbeitet mit vielen Kunden aus dem Handel.|V: ja, klingt gut", false},
	} {
		a := analyse(Input{Transcript: convo(c.conv)})
		got := false
		for _, f := range a.findings {
			if f.f == fIntent && !f.deny && f.level >= 75 {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("%q: offer taken %v, want %v", c.conv, got, c.want)
		}
	}
}

// TestOfferAskedAboutIsNoPitch: a buyer asking about a special offer is
// not announcing one.
func TestOfferAskedAboutIsNoPitch(t *testing.T) {
	for _, text := range []string{"vi la oferta especial en Instagram, ¿sigue vigente?", "a promoção exclusiva ainda vale?", "l'offre spéciale est encore valable ?"} {
		if _, ok := findingOf(t, "", text, fSpamWeak, false); ok {
			t.Errorf("%q: read as a vendor pitch", text)
		}
	}
}

// TestYogaMatIsNoNegator: "mat" before a Hindi verb is as often a mat as
// a "don't"; only "nahi" denies the word after it.
func TestYogaMatIsNoNegator(t *testing.T) {
	if _, ok := findingOf(t, "", "mujhe 20 yoga mat chahiye studio ke liye", fNeed, false); !ok {
		t.Error("a need for mats is read as denied")
	}
}

// TestForLaterDefers: interest kept for later, in every language, puts the
// purchase off (at most nurture); "para después de Navidad" is a date.
func TestForLaterDefers(t *testing.T) {
	for _, text := range []string{
		"el Executive MBA, pero para dentro de un tiempo",
		"ok merci, je note pour plus tard",
		"ist eher für später interessant, wenn wir launchen",
		"ok fica para depois. obrigado",
		"good to know for later",
	} {
		a := analyse(Input{Transcript: convo("B: Hola, ¿en qué te ayudo?|V: " + text)})
		if _, ok := deferred(a); !ok {
			t.Errorf("%q: not deferred", text)
		}
	}
	if f, ok := findingOf(t, "", "lo quiero para después de Navidad", fTimeline, false); ok && f.reading == readForLater {
		t.Error("'para después de Navidad' read as for later")
	}
}

// TestAppointmentAsked: an appointment asked for in everyday forms
// ("consegue marcar-me", "can I get in Tuesday?"), the European
// Portuguese wish "gostava de" and "para a semana" (next week).
func TestAppointmentAsked(t *testing.T) {
	for _, text := range []string{"Consegue marcar-me para terça ao fim do dia?", "can i get in thursday after 4?", "could you fit me in tomorrow?"} {
		if f, ok := findingOf(t, "", text, fIntent, false); !ok || f.level < 75 {
			t.Errorf("%q: no appointment asked (%+v)", text, f)
		}
	}
	if _, ok := findingOf(t, "", "gostava de fazer uma limpeza", fNeed, false); !ok {
		t.Error("'gostava de' is not read as a wish")
	}
	if f, ok := findingOf(t, "", "um dia gostávamos de a recuperar", fTimeline, false); !ok || f.level > 25 {
		t.Errorf("'um dia gostávamos' not someday: %+v", f)
	}
	if f, ok := findingOf(t, "", "pode ser para a semana?", fTimeline, false); !ok || f.level < 90 {
		t.Errorf("'para a semana' not next week: %+v", f)
	}
	checkTiers(t, []struct{ want, conv string }{
		{TierSQL, "B: Olá! Em que posso ajudar?|V: Boa tarde, gostava de fazer uma destartarização|B: Custa 45 €.|V: Ótimo. Consegue marcar-me para a semana, de preferência quinta de manhã?|B: Quinta temos vaga às 9h. Quer que reserve?|V: Sim por favor. Rita Sousa, 912 000 111"},
	})
}
