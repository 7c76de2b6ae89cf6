package score

import (
	"strings"
	"testing"
)

// TestBotTurnsAway: a bot that says its chat is for its customers, or that
// the business is not buying what the visitor offers, took the visitor for
// someone other than a buyer; a greeting that names the assistant, and
// sales talk, turn nobody away.
func TestBotTurnsAway(t *testing.T) {
	for _, c := range []struct {
		text, lang string
		want       bool
	}{
		{"Thanks, Kyle. This chat is for customers looking for landscaping services.", "en", true},
		{"We're not looking for marketing services at this time.", "en", true},
		{"Gracias, Carla. Este chat es para huéspedes que quieren reservar o hacer consultas.", "es", true},
		{"No estamos interesados, gracias.", "es", true},
		{"Merci, mais ce chat est réservé aux propriétaires d'animaux.", "fr", true},
		{"Danke für die Info. Ich bin der Chat-Assistent für Patientenanfragen.", "de", true},
		{"Dieser Chat richtet sich an Mandanten und Interessenten.", "de", true},
		{"Ye chat patients ke appointment aur treatment queries ke liye hai.", "hi-en", true},
		{"Grüezi! Ich bin der Chat-Assistent der Sprachschule Lingua Zürich. Wie kann ich helfen?", "de", false},
		{"We're not looking at a price increase this year.", "en", false},
		{"Is this chat for existing customers only?", "en", false},
		{"You can reply to this chat any time.", "en", false},
	} {
		if got := botRoutes(c.text, c.lang)&routeNotForYou != 0; got != c.want {
			t.Errorf("%q: turned away %v, want %v", c.text, got, c.want)
		}
	}
}

// TestDeadlineIsNotLater: "au plus tard", "a más tardar", "at the latest"
// and "before the year's end" set a deadline; the "later" inside them is
// not a purchase put off.
func TestDeadlineIsNotLater(t *testing.T) {
	for _, s := range []string{
		"il faut les étuis fin septembre au plus tard",
		"lo necesitamos el viernes a más tardar",
		"I need someone onsite by friday at the latest",
		"il veut que ce soit en place avant l'inventaire de fin d'année",
		"queremos cerrar algo antes de fin de año",
	} {
		a := analyse(Input{Transcript: []Turn{{Role: RoleVisitor, Text: s}}})
		for _, f := range a.findings {
			if f.f == fTimeline && (f.reading == "later" || f.reading == "later this year") {
				t.Errorf("%q: read as %q", s, f.reading)
			}
		}
	}
}

// TestYearsAwayDefers: a time two years or more off, by a span or a date,
// defers the purchase even without "not now"; "eventually" names no time.
func TestYearsAwayDefers(t *testing.T) {
	for _, c := range []struct {
		transcript string
		want       bool
	}{
		{"V: wir überlegen ein haus zu kaufen, budget 800.000|B: Möchten Sie einen Suchauftrag anlegen?|V: ehrlich gesagt ist das eher so ein plan für in zwei jahren, vielleicht.", true},
		{"V: 5kW ka kitna padega?|B: 5kW system ₹3.2 lakh ka hai.|V: chalo jab apna ghar lenge tab lagwayenge, 2-3 saal mein plan hai", true},
		{"V: I run a small coffee roastery and want to trademark our brand name eventually. What does your package include?", false},
		{"V: we need it live in 2 months, what does it cost?", false},
	} {
		_, got := deferred(analyse(Input{Transcript: convo(c.transcript)}))
		if got != c.want {
			t.Errorf("%q: deferred %v, want %v", c.transcript, got, c.want)
		}
	}
}

// TestOrderNumberNamed: a visitor who names the number of their order,
// invoice or claim came about something already bought; a yes to the
// bot's remedy does not make them a buyer. A count after a noun ("customer
// list 5000") is no reference.
func TestOrderNumberNamed(t *testing.T) {
	for _, c := range []struct {
		transcript, want string
	}{
		{"V: yes. order #PH-48213, business cards came out PURPLE not blue.|B: I can request a free reprint with express shipping, or a refund if you prefer.|V: reprint please, need them by monday", TierUnqualified},
		{"V: WHERE IS MY MATTRESS. order DW-558201. was supposed to come tuesday|B: I can have it delivered on Friday.|V: friday??", TierUnqualified},
		{"V: me llego la mesa con una pata rota!!! pedido 55821", TierUnqualified},
		{"V: wo bleibt mein sofa?? bestellung 100-48217, liefertermin war letzte woche", TierUnqualified},
		{"V: ich hab vor 3 wochen meine kopfhörer zurückgeschickt und noch immer kein geld!!! bestellung 2024-77193", TierUnqualified},
	} {
		if r := Score(qual("bant"), Input{Transcript: convo(c.transcript)}); r.Tier != c.want {
			t.Errorf("%q: %s, want %s (%s)", c.transcript, r.Tier, c.want, r.Summary)
		}
	}
	a := read("", "humari customer list 5000 ke aas paas hai, aur monthly kitna?")
	for _, f := range a.findings {
		if f.reading == readReference {
			t.Errorf("a count read as a reference: %q", f.quote)
		}
	}
}

// TestBotDoneWithSlot: "Done", "Listo", "C'est fait", "Erledigt" with the
// day or hour written down confirm a booking; without one they confirm
// nothing.
func TestBotDoneWithSlot(t *testing.T) {
	for _, c := range []struct {
		text, lang string
		booked     bool
	}{
		{"Done — Thursday 8 am and Friday 7:30 am with Sam. Bring your referral.", "en", true},
		{"Listo, te espero el jueves a las 10:00.", "es", true},
		{"Erledigt: Freitag 14 Uhr bei Frau Brandt.", "de", true},
		{"Done! Your address has been updated.", "en", false},
		{"C'est fait : l'option est résiliée.", "fr", false},
	} {
		if got := botRoutes(c.text, c.lang)&routeBooked != 0; got != c.booked {
			t.Errorf("%q: booked %v, want %v", c.text, got, c.booked)
		}
	}
}

// TestMeasuresAreNotMoney: a number followed by a unit of distance,
// weight, area or energy is a measure ("190 mil km", "92k miles", "6 mil
// kg"), not money.
func TestMeasuresAreNotMoney(t *testing.T) {
	for _, s := range []string{
		"um Golf 1.6 tdi de 2015 com 190 mil km",
		"i'd trade in my 2016 civic, 92k miles",
		"12 paletes de cosmético, uns 6 mil kg no total",
	} {
		for _, f := range read("", s).findings {
			if f.f == fBudget && f.level > 0 {
				t.Errorf("%q: read as money (%s)", s, f.reading)
			}
		}
	}
}

// TestAsksWhatIsIncluded: asking whether something is included, in the
// forms each language uses, evaluates the offering.
func TestAsksWhatIsIncluded(t *testing.T) {
	for _, s := range []string{
		"sind meetingräume inklusive?",
		"ist im team büro strom, internet, kaffee etc dabei?",
		"e incluem atividades, tipo ver baleias?",
		"le petit-déjeuner est compris ?",
	} {
		ok := false
		for _, f := range read("", s).findings {
			ok = ok || (f.f == fEval && f.reading == "asks what is included")
		}
		if !ok {
			t.Errorf("%q: not read as asking what is included", s)
		}
	}
}

// TestRevenueIsSize: the visitor's own revenue is the size of their
// business, not a budget.
func TestRevenueIsSize(t *testing.T) {
	for _, s := range []string{
		"abhi humara turnover hai around 40 lakh",
		"we do about $2M in revenue a year",
		"nosso faturamento é de R$ 500 mil por mês",
	} {
		size, budget := false, false
		for _, f := range read("", s).findings {
			size = size || (f.f == fSize && strings.HasPrefix(f.reading, "revenue: "))
			budget = budget || (f.f == fBudget && f.level > 0)
		}
		if !size || budget {
			t.Errorf("%q: size %v, budget %v; want a size and no budget", s, size, budget)
		}
	}
}

// TestComeBackWhen: a visitor who will come back once something has
// happened defers the purchase (at most nurture); "if I have questions"
// and a question defer nothing.
func TestComeBackWhen(t *testing.T) {
	for _, c := range []struct {
		transcript string
		want       bool
	}{
		{"V: was würde das ca kosten?|B: Meist 800–1.500 € im Jahr.|V: oh ok, das lohnt sich bei meinem umsatz noch nicht. wenn das mal mehr wird, komm ich vielleicht auf euch zurück", true},
		{"V: una app tipo marketplace, la necesito YA|B: Suele costar entre 35.000 € y 60.000 €.|V: lo hablo con mi socio y si eso volvemos cuando haya dinero", true},
		{"V: germany me free education hota hai na? canada kitna mehenga hai?|B: Canada mein approx 25-35 lakh per year.|V: ok. 11th me aa jayegi tab contact karenge", true},
		{"V: we need 20 seats next month, what does it cost?|B: $40 per seat.|V: great, I'll get back to you if I have questions", false},
		{"V: we need 20 seats next month, what does it cost?|B: $40 per seat.|V: can I come back when I have the numbers?", false},
	} {
		_, got := deferred(analyse(Input{Transcript: convo(c.transcript)}))
		if got != c.want {
			t.Errorf("%q: deferred %v, want %v", c.transcript, got, c.want)
		}
	}
}

// TestStillSaving: a visitor still saving for the purchase defers it;
// a seller's "customers save 20%" is no saving of the visitor's.
func TestStillSaving(t *testing.T) {
	for _, c := range []struct {
		transcript string
		want       bool
	}{
		{"V: how much is a saturday in summer roughly|B: Saturdays in summer start at $18,000.|V: oof ok. still need to save. just looking at pretty places rn", true},
		{"V: europe trip kitne ka padta hai 2 logo ka?|B: Approx 3.5-4 lakh.|V: hmm mehenga hai. pehle savings karni padegi", true},
		{"V: franquia custa quanto?|B: O investimento inicial é R$ 250 mil.|V: nossa. to juntando ainda, trabalho de CLT", true},
		{"V: Mit unserer Lösung sparen Kunden 20 % Leerfahrten. Wer ist bei Ihnen zuständig?", false},
	} {
		_, got := deferred(analyse(Input{Transcript: convo(c.transcript)}))
		if got != c.want {
			t.Errorf("%q: deferred %v, want %v", c.transcript, got, c.want)
		}
	}
}

// TestMarketResearch: surveying the market in the rival's own words is a
// competitor's purpose; a buyer "understanding the market" is not.
func TestMarketResearch(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"nein, ehrlich gesagt eröffne ich selbst gerade eine kanzlei zwei straßen weiter und mache etwas marktrecherche", true},
		{"betreiben wir selbst ein Übersetzungsbüro in Leipzig und wollten uns einen Marktüberblick verschaffen", true},
		{"trabalho na área de produto de uma empresa que faz um software parecido, estou só a fazer benchmark", true},
		{"nahi actually hum bhi Kota me ek institute chalate hai", true},
		{"abhi kuch fix nahi hai yaar, bas market samajh raha hu", false},
	} {
		got := false
		for _, f := range read("", c.text).findings {
			got = got || f.f == fCompetitor
		}
		if got != c.want {
			t.Errorf("%q: competitor %v, want %v", c.text, got, c.want)
		}
	}
}

// TestGermanRefusals: the separable and noun forms of a German refusal
// ("geben wir nicht heraus", "machen wir keine Angaben") refuse as
// "teilen wir nicht" does; a price the bot gives refuses nothing.
func TestGermanRefusals(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Interne Abläufe und Kennzahlen geben wir nicht heraus.", true},
		{"Zu Löhnen und Kunden machen wir keine Angaben.", true},
		{"Für technische Fachübersetzungen liegt unser Wortpreis bei 0,14–0,18 €.", false},
	} {
		if got := botRoutes(c.text, "de")&routeRefuse != 0; got != c.want {
			t.Errorf("%q: refusal %v, want %v", c.text, got, c.want)
		}
	}
}

// TestSaysExistingPatient: a visitor who says they are already this
// business's patient, member or client is an existing customer.
func TestSaysExistingPatient(t *testing.T) {
	for _, s := range []string{
		"namaste ji. main aapka purana client hu, Manish Agarwal, hardware shop.",
		"hola, soy paciente vuestro.",
		"ich bin schon Patientin bei Ihnen",
		"hey, im already a client.",
	} {
		ok := false
		for _, f := range read("", s).findings {
			ok = ok || f.f == fSupport
		}
		if !ok {
			t.Errorf("%q: not read as an existing customer", s)
		}
	}
}
