package score

import (
	"strings"
	"testing"
)

// TestActedAfterBrowsing: "just looking" said first, then a booking the
// bot confirmed, a yes to its offer of a visit or a quote asked for a near
// date: the later act is the visitor's latest word, so the browsing cap no
// longer holds. "Just looking" said after the offer still caps.
func TestActedAfterBrowsing(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"sql", "V: just looking really|B: Sure. Anything in particular?|V: we own the house, the roof needs solar before winter|B: Would you like a free on-site assessment and written quote?|V: yeah go on, weekday mornings are best"},
		{"sql", "V: jein, wir informieren uns erstmal nur|B: Gern. Um was für ein Gebäude geht es?|V: Einfamilienhaus, wir wollen bis April eine Anlage, mehr als 25.000 € wollen wir nicht ausgeben. Könnte nächste Woche jemand vorbeikommen?|B: Ein Techniker könnte am Dienstag oder am Freitag kommen. Was passt besser?|V: Freitag vormittag|B: Eingetragen: Freitag, 10 Uhr."},
		{"sql", "V: solo estoy mirando|B: ¡Claro! ¿Qué necesitas?|V: soy dueña de una clínica, necesitamos agenda online este mes, tenemos 2 mil dólares|B: Podemos hacer una demo el martes 10 h o el jueves 16 h.|V: el martes|B: Listo: demo el martes a las 10 h."},
		{"nurture", "V: hi, I own a bakery and need a new website|B: Would you like a quote this week?|V: just looking really, no plans yet"},
	})
}

// TestPrepositionNegatorScope: "without", "sin", "sem", "sans", "ohne"
// deny the noun they govern, not the rest of the clause; spoken German
// "nem", "nen" are articles, not Portuguese "nem"; French "dont" is a
// relative pronoun, not "don't" without its apostrophe.
func TestPrepositionNegatorScope(t *testing.T) {
	for _, c := range []struct {
		s    string
		deny bool
	}{
		{"Eso de que funcione sin internet es lo que necesito.", false},
		{"Que funcione sem internet é o que eu preciso.", false},
		{"Qu'il marche sans internet, c'est ce dont on a besoin.", false},
		{"Working without internet is exactly what we need.", false},
		{"Wir haben schon ein Angebot von nem anderen Anbieter.", false},
		{"Sem orçamento por enquanto.", true},
		{"Estamos sin presupuesto.", true},
	} {
		a := read("", c.s)
		deny := false
		for _, f := range a.findings {
			deny = deny || f.deny
		}
		if deny != c.deny {
			t.Errorf("%q: denial %v, want %v: %+v", c.s, deny, c.deny, a.findings)
		}
	}
}

// TestBotOpenedCaseOrSentSeller: a bot that says it opened a support case,
// with or without its number, serves an existing customer; one that sends
// vendor proposals to its e-mail or procurement team, without an address,
// turns a seller away. Sales talk about suppliers or tickets routes nobody.
func TestBotOpenedCaseOrSentSeller(t *testing.T) {
	for _, c := range []struct {
		lang, text string
		want       route
	}{
		{"de", "Ich habe ein Support-Ticket mit hoher Priorität angelegt.", routeTicket},
		{"en", "I've opened a ticket with our billing team.", routeTicket},
		{"es", "He creado una incidencia con prioridad alta.", routeTicket},
		{"pt", "Chamado aberto, a equipe técnica vai te ligar.", routeTicket},
		{"hi-en", "Aapka ticket create kar diya hai.", routeTicket},
		{"hi-en", "Vendor proposals aap humari procurement team ko email kar sakte hain.", routeVendor},
		{"es", "Las propuestas de proveedores van por correo al área de compras.", routeVendor},
		{"en", "Do you want me to open a ticket?", 0},
		{"en", "We work with suppliers across Europe; every ticket gets an answer within a day.", 0},
	} {
		if got := botRoutes(c.text, c.lang) & (routeTicket | routeVendor); got != c.want {
			t.Errorf("%q: routes %b, want %b", c.text, got, c.want)
		}
	}
}

// TestComparedToUs: weighing the business against the visitor's own ("par
// rapport à nous", "compared to us", "verglichen mit uns") is a rival's
// question, whatever price question came with it.
func TestComparedToUs(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"unqualified", "V: Bonjour, je voudrais connaître vos tarifs de community management|B: Nos forfaits démarrent à 6 000 MAD HT/mois.|V: et vos clients c'est qui ? c'est pour voir votre positionnement par rapport à nous"},
		{"unqualified", "V: what do you charge for bookkeeping per month?|B: From $300 a month.|V: and how many clients do you have? trying to see how you stack up compared to us"},
		{"unqualified", "V: Was kostet bei euch die Lohnabrechnung pro Mitarbeiter?|B: Ab 12 € pro Abrechnung.|V: Und wie viele Kunden habt ihr? Nur um zu sehen, wie ihr verglichen mit uns dasteht."},
	})
}

// TestCurrentProviderFault: a fault of the provider or tool the visitor has
// today ("o nosso contabilista atual não responde", "our current agency
// never answers", "unser aktueller Anbieter reagiert nicht") is a reason to
// switch, not a support request; a fault of "my current plan" or of an
// order is still one.
func TestCurrentProviderFault(t *testing.T) {
	for _, c := range []struct {
		s       string
		problem bool
	}{
		{"O nosso contabilista atual não responde a nada.", false},
		{"Nuestro proveedor actual no responde.", false},
		{"Notre prestataire actuel ne répond pas.", false},
		{"Unser aktueller Anbieter reagiert nicht, das System funktioniert nicht.", false},
		{"Our current scheduling tool keeps crashing.", false},
		{"My current plan is not working since the update.", true},
		{"Mi pedido actual no ha llegado.", true},
	} {
		a := read("", c.s)
		problem := false
		for _, f := range a.findings {
			problem = problem || (f.f == fProblem && !f.deny)
		}
		if problem != c.problem {
			t.Errorf("%q: fault %v, want %v", c.s, problem, c.problem)
		}
	}
}

// TestCustomerPricesMore: a customer whose support question was answered
// and who then asks what more would cost, giving the size to be bought,
// weighs buying more; one who only says they are a customer and asks the
// price of their renewal, with no size, stays a support request. The cost
// verb before "combien" in any tense asks the price, and fleet, site and
// bed counts are sizes in every language.
func TestCustomerPricesMore(t *testing.T) {
	checkTiers(t, []struct{ want, conv string }{
		{"mql", "V: bonjour, on est déjà client (12 camions). le rapport sort en anglais, comment je change ça?|B: Paramètres > Langue.|V: parfait. autre chose : on vient d'acheter une compagnie, 40 camions de plus. ça coûterait combien de tout mettre chez vous?"},
		{"mql", "V: hola, ya somos clientes, ¿cómo cambio el idioma del informe?|B: En Ajustes > Idioma.|V: gracias. otra cosa: compramos otra empresa con 30 camiones, ¿cuánto costaría sumarlos?"},
	})
	for _, s := range []string{"ça coûterait combien ?", "ça reviendrait à combien pour nous ?"} {
		if a := read("", s); !hasReading(a, fIntent, "asks the price") {
			t.Errorf("%q: no price question read", s)
		}
	}
	for _, s := range []string{"Wir haben 40 LKW.", "Temos 40 caminhões.", "Nous avons 40 camions.", "Tenemos 40 camiones."} {
		if a := read("", s); !hasFacet(a, fSize) {
			t.Errorf("%q: no size read", s)
		}
	}
}

func hasReading(a *analysis, f facet, reading string) bool {
	for _, x := range a.findings {
		if x.f == f && x.reading == reading && !x.deny {
			return true
		}
	}
	return false
}

func hasFacet(a *analysis, f facet) bool {
	for _, x := range a.findings {
		if x.f == f && !x.deny {
			return true
		}
	}
	return false
}

// TestBotNotesNearDay: a bot that notes a booking for a near day and a part
// of it ("Notiert: Rückruf morgen Vormittag", "Noted: call tomorrow
// morning", "C'est noté : visite demain matin") confirms it as it does with
// a weekday or an hour; a near day alone ("les échantillons partent
// demain") books nothing.
func TestBotNotesNearDay(t *testing.T) {
	for _, c := range []struct {
		lang, text string
		booked     bool
	}{
		{"de", "Notiert: Rückruf morgen Vormittag bei Herrn Sauer.", true},
		{"en", "Noted: call tomorrow morning with our engineer.", true},
		{"fr", "C'est noté : visite demain matin.", true},
		{"pt", "Anotado: visita amanhã cedo.", true},
		{"fr", "C'est noté, les échantillons partent demain à l'adresse du formulaire.", false},
		{"en", "Noted, I'll send the brochure today.", false},
	} {
		if got := botRoutes(c.text, c.lang)&routeBooked != 0; got != c.booked {
			t.Errorf("%q: booked %v, want %v", c.text, got, c.booked)
		}
	}
}

// TestChatSpellingsAndSums: Brazilian chat spellings ("to olhando", "bora
// marcar", "pra") read as the words they stand for; "let's book" with
// nothing after it asks to book in every language; a round thousand in
// words is what it is in digits, and money set aside ("separamos",
// "apartados", "zurückgelegt") is a budget; a thousand of a count noun
// ("dos mil empleados") is a count, not money.
func TestChatSpellingsAndSums(t *testing.T) {
	for _, c := range []struct {
		s       string
		f       facet
		reading string
	}{
		{"então bora marcar, vocês atendem no sábado de manhã?", fIntent, "asks to book"},
		{"¿podemos agendar para el sábado?", fIntent, "asks to book"},
		{"ok, on peut caler ça samedi ?", fIntent, "asks to book"},
		{"meu marido quer fechar logo", fIntent, "asks to book"},
	} {
		if a := read("", c.s); !hasReading(a, c.f, c.reading) {
			t.Errorf("%q: no %q read", c.s, c.reading)
		}
	}
	for _, s := range []string{"a gente separamos uns quarenta mil pra cozinha", "ya tenemos apartados cinco mil para esto", "Wir haben zwanzigtausend zurückgelegt."} {
		a := read("", s)
		ok := false
		for _, f := range a.findings {
			ok = ok || (f.f == fBudget && f.level >= 70)
		}
		if !ok {
			t.Errorf("%q: no budget read", s)
		}
	}
	for _, s := range []string{"somos dos mil empleados", "tenemos unos 5 mil clientes"} {
		if a := read("", s); hasFacet(a, fBudget) {
			t.Errorf("%q: a count read as money", s)
		}
	}
}

// TestRegionalQuotesAndDates: Swiss and Austrian "Offerte" and Québec
// "soumission" ask for a quote as "Angebot" and "devis" do; "Ende nächster
// Woche" is this week as "nächste Woche" is; pieces and parts made or
// shipped ("500 Stk/Jahr", "2.000 peças") are a volume.
func TestRegionalQuotesAndDates(t *testing.T) {
	for _, c := range []struct {
		s       string
		f       facet
		reading string
	}{
		{"Wir brauchen eine Offerte in CHF.", fIntent, "asks for a quote"},
		{"Est-ce que vous pouvez nous envoyer une soumission?", fIntent, "asks for a quote"},
		{"Wäre gut, wenn das bis Ende nächster Woche da ist.", fTimeline, "this week"},
	} {
		if a := read("", c.s); !hasReading(a, c.f, c.reading) {
			t.Errorf("%q: no %q read", c.s, c.reading)
		}
	}
	for _, s := range []string{"Wir fertigen ca. 500 Stk. pro Los.", "We ship 2,000 pcs a month.", "Produzimos 3.000 peças por mês."} {
		if a := read("", s); !hasFacet(a, fMetrics) {
			t.Errorf("%q: no volume read", s)
		}
	}
}

// TestVagasIsAJobOnlyAsAnOpening: Portuguese "vaga" is a job opening only
// as one ("tem vagas", "vaga de analista", "vagas abertas"); "perguntas
// vagas" are vague questions. "Vcs tão contratando?" asks for a job as
// "vocês estão contratando?" does.
func TestVagasIsAJobOnlyAsAnOpening(t *testing.T) {
	for _, c := range []struct {
		s   string
		job bool
	}{
		{"Um cliente alemão já fez umas perguntas vagas, mas por agora não há nada concreto.", false},
		{"Oi, vi a vaga de analista de dados, ainda está aberta?", true},
		{"Boa tarde, vocês têm vagas para motorista?", true},
		{"boa tarde, vcs tão contratando motorista? tenho carteira de habilitação e moro aqui perto da empresa de vocês", true},
	} {
		if got := hasFacet(read("", c.s), fJob); got != c.job {
			t.Errorf("%q: job %v, want %v", c.s, got, c.job)
		}
	}
}

// TestCurrencyFormats: the rand's "R1.2 million", Swiss "CHF 40'000", CFA
// francs, dirhams and shillings are money, as rupees and euros are.
func TestCurrencyFormats(t *testing.T) {
	for _, c := range []struct{ s, want string }{
		{"capex is approved, R1.2 million for the three units", "ZAR 1,200,000"},
		{"Das Budget liegt bei CHF 40'000 für das ganze Projekt.", "CHF 40,000"},
		{"Notre budget est de 2 500 000 FCFA pour la boutique.", "XOF 2,500,000"},
		{"our budget is KES 500,000 for the year", "KES 500,000"},
	} {
		a := read("", c.s)
		ok := false
		for _, f := range a.findings {
			ok = ok || (f.f == fBudget && strings.Contains(f.reading, c.want))
		}
		if !ok {
			t.Errorf("%q: no budget of %s read", c.s, c.want)
		}
	}
}
