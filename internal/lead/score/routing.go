package score

import "strings"

// How the bot handled the conversation is structural evidence of what the
// visitor came for, in any language and whatever business words the
// visitor used: a bot that hands the visitor to its claims team or opens a
// support ticket was talking to an existing customer; a bot that refuses
// to reveal internal or other customers' data was being fished for it; a
// bot that sends the visitor to its vendor or partnership inbox was being
// sold to. The bot's words are never evidence: a disqualifier built on
// them quotes the visitor turn the bot was answering.

// route is what one bot turn did with the visitor's request.
type route uint16

const (
	routeSupport   route = 1 << iota // handed to support, claims, a ticket
	routeRefuse                      // refused to share internal or private data
	routeVendor                      // sent to the vendor or partnership inbox
	routeAsksRef                     // asked for the reference of an order, policy, claim or contract
	routeJobs                        // pointed the visitor to its careers page or hiring process
	routeBooked                      // confirmed a booking the visitor made ("you're booked for Friday at 9")
	routeTicket                      // stated the number of a support case it opened ("Ticket #48213")
	routeNotForYou                   // told the visitor the chat is for its customers, or that the business is not buying
	routeNoOrders                    // refused to act on an instruction: change a setting, a classification, a rating
)

// routeMark is a routing bot turn and the visitor turn it answered.
type routeMark struct {
	kind  route
	visit int // index into analysis.turns of the visitor turn answered
}

// Concept tables, folded words of every supported language.
var (
	// Teams and channels that serve existing customers.
	supportTeamWords = setOfWords([]string{
		"support", "claims", "claim", "ticket", "helpdesk", "aftersales",
		"soporte", "siniestros", "siniestro", "reclamaciones", "incidencias", "incidencia",
		"suporte", "sinistros", "sinistro", "chamado", "reclamacoes",
		"sav", "sinistres", "reclamations",
		"schadenabteilung", "schadenservice", "kundenservice", "kundendienst", "supportteam", "serviceteam",
		"technikteam", "schadenmeldung", "schadensabteilung",
	})
	// Two-word channel names ("customer service", "servicio técnico").
	supportTeamPairs = [][2]string{
		{"customer", "service"}, {"customer", "care"}, {"service", "team"}, {"billing", "team"}, {"returns", "team"},
		{"servicio", "tecnico"}, {"atencion", "al"}, {"servico", "tecnico"}, {"assistencia", "tecnica"},
		{"service", "client"}, {"service", "clients"}, {"service", "technique"}, {"equipe", "technique"},
		{"technischen", "support"}, {"claims", "team"}, {"help", "desk"},
	}
	// Verbs of handing over or opening a case, in the first person the
	// bot speaks in ("te paso", "je transmets", "ich leite ... weiter").
	routeVerbsFirst = setOfWords([]string{
		"paso", "pasamos", "transfiero", "transferimos", "derivo", "derivamos", "escalo", "abro", "abrimos",
		"traslado", "trasladado", "trasladamos", "comunico", "he", "hemos",
		"encaminho", "encaminhamos", "encaminhei", "transfiro", "abri", "repasso", "repassei",
		"transmets", "transmettons", "transmis", "ouvre", "redirige", "oriente",
		"leite", "weiter", "weiterleiten", "weitergeleitet", "eroffne", "eroffnet", "offne", "verbinde",
		// Escalating and handing over in every language: "Ich kann Ihren
		// Fall an den Kundenservice eskalieren", "Ihr Fall ist eskaliert",
		// "escalamos tu caso a soporte", "j'escalade au SAV".
		"eskaliere", "eskalieren", "eskaliert", "ubergebe", "ubergeben", "ubergeben", "escalado", "escalamos", "escalei", "escalonei",
		"escalade", "escaladons", "remonte", "remontons",
	})
	// English verbs, which need an "I" or "we" before them ("I'll route
	// you", "we've escalated it"), or a Hinglish "karta hoon" after them.
	routeVerbsEn = setOfWords([]string{
		"route", "routed", "transfer", "transferring", "forward", "forwarding", "forwarded", "escalate",
		"escalated", "escalating", "flagged", "flag", "raised", "raise", "opened", "open", "connect", "connecting",
		"pass", "passed", "passing", "refer", "referred",
	})
	firstPerson = setOfWords([]string{"i", "we", "me", "let", "main", "hum"})
	hinglishDo  = setOfWords([]string{"karta", "karti", "kar", "karte", "karenge", "karunga", "karungi", "karwa", "karwata", "karwati"})
	// Sharing verbs a refusal negates.
	shareVerbs = setOfWords([]string{
		"share", "disclose", "reveal", "display", "output",
		"compartir", "compartimos", "revelar", "divulgar", "compartilhar", "compartilhamos", "partilhar", "partilhamos",
		"partager", "partageons", "divulguer", "afficher", "communiquer",
		"teilen", "herausgeben", "weitergeben", "anzeigen", "preisgeben",
		// The conjugated forms a refusal is said in: "no facilitamos
		// datos de clientes", "não passamos essas informações", "nous ne
		// communiquons pas ces chiffres", "dazu geben wir keine Auskunft".
		"damos", "facilitamos", "proporcionamos", "divulgamos", "fornecemos", "passamos", "divulgamos",
		"donnons", "communiquons", "divulguons", "geben", "nennen",
		// The same refusal in the passive or with "publish": "Essas
		// informações não são divulgadas", "these figures are not
		// shared", "we don't publish churn figures", "ces données ne sont
		// pas communiquées", "diese Zahlen veröffentlichen wir nicht".
		"shared", "disclosed", "published", "publish", "released",
		"compartidos", "compartidas", "divulgados", "divulgadas", "publicamos", "publicados", "publicadas", "facilitados", "facilitadas",
		"compartilhados", "compartilhadas", "partilhados", "partilhadas", "fornecidos", "fornecidas", "publicar",
		"partages", "partagees", "communiques", "communiquees", "divulgues", "divulguees", "publions", "publiees", "publies",
		"veroffentlichen", "veroffentlicht", "geteilt", "weitergegeben", "herausgegeben",
	})
	// Words that call what was asked internal or confidential.
	privateWords = setOfWords([]string{
		"confidential", "confidencial", "confidenciales", "confidentiel", "confidentielle", "confidentielles", "confidentiels",
		"vertraulich", "vertrauliche", "vertraulichen", "internal", "interna", "internas", "interno", "internos", "interne", "internes", "internen",
	})
	// The visitor's own data: "we never share your data" reassures a
	// buyer, it refuses nothing.
	visitorPossessives = setOfWords([]string{"your", "tu", "tus", "su", "sus", "seu", "seus", "sua", "suas", "votre", "vos", "ton", "tes", "ihre", "ihr", "ihren", "deine", "aapka", "aapki", "aapke"})
	// What a refusal withholds: information, data, details.
	infoWords = setOfWords([]string{
		"information", "info", "data", "details", "numbers", "addresses", "contact", "contacts", "configuration", "prompt",
		"informacion", "datos", "detalles", "cifras", "numeros", "direcciones", "configuracion",
		"informacao", "informacoes", "dados", "detalhes", "enderecos", "configuracao",
		"informations", "donnees", "coordonnees", "chiffres", "adresses",
		"informationen", "daten", "angaben", "zahlen", "kennzahlen", "umsatzzahlen", "kontaktdaten", "adressen", "konfiguration", "auskunft", "auskunfte",
		"jaankari", "jankari",
		// Contacts and figures in the plural of every language: "Não
		// posso partilhar contactos internos", "we don't publish churn
		// figures".
		"contactos", "contatos", "kontakte", "figures", "statistics", "stats", "estadisticas", "estatisticas", "statistiques", "statistiken",
		// What a rival fishes for: client lists, margins, pay.
		"list", "lists", "margins", "compensation", "salaries", "listas", "margenes", "margens", "salarios",
		"liste", "listes", "marges", "salaires", "listen", "margen", "gehalter", "comercial", "commerciales", "commerciale",
		"carteira", "cartera", "portefeuille",
	})
	// Where a business sends applicants: its careers page, its openings,
	// its hiring process ("apply on our careers page", "las vacantes están
	// en /empleo", "envie pelo Trabalhe Conosco", "postulez via notre page
	// emplois", "bewerben Sie sich über unsere Karriereseite").
	jobWords = setOfWords([]string{
		"careers", "vacancies", "resume", "cv",
		"vacantes", "vacante", "empleo", "empleos", "curriculum",
		"curriculo", "seletivo", "trabalhe",
		"emploi", "emplois", "candidature", "candidatures",
		"karriere", "karriereseite", "stellenangebote", "stellenanzeigen", "bewerbung", "bewerbungen", "lebenslauf", "jobportal", "karriereportal", "bewerbungsportal",
		"naukri",
	})
	// Verbs that send an applicant there: apply, send, submit.
	applyVerbs = setOfWords([]string{
		"apply", "submit", "send", "upload", "see",
		"postular", "postulate", "postula", "aplicar", "aplica", "enviar", "envia", "envie", "envies", "manda", "mandar", "mande", "candidatar", "candidate", "cadastrar",
		"postulez", "postuler", "envoyez", "envoyer", "deposer", "deposez",
		"bewerben", "senden", "schicken", "hochladen",
		"bhejo", "bhejiye", "bhej",
	})
	refusalNegators = setOfWords([]string{"not", "no", "cannot", "nao", "pas", "nicht", "keine", "nahi", "nunca", "never", "ne"})
	// Inboxes for people who sell to the business.
	vendorWords = setOfWords([]string{
		"vendor", "vendors", "supplier", "suppliers", "partnerships", "partnership",
		"proveedores", "proveedor", "alianzas", "alianza", "fornecedores", "fornecedor", "parcerias", "parceria",
		"fournisseurs", "fournisseur", "partenariats", "partenariat", "lieferanten", "lieferant", "kooperationen", "kooperation",
		// Sponsorship asked of the business: "las solicitudes de
		// patrocinio las evalúa la dirección".
		"sponsorship", "sponsorships", "sponsoring", "patrocinio", "patrocinios", "mecenat", "parrainage",
	})
)

// botRoutes reads what one bot turn did with the request it answered,
// sentence by sentence: the routing verb, the team and the refusal must
// sit in one sentence.
func botRoutes(text, lang string) route {
	toks, sents := tokenizeLang(text, lex, lang)
	return botRoutesToks(text, toks, sents)
}

// botRoutesToks is botRoutes given the turn's tokens.
func botRoutesToks(text string, toks []token, sents []sentence) route {
	var r route
	for _, s := range sents {
		lo, hi := s.tokStart, s.tokEnd
		var team, verb []int
		share, neg, private, info, mine, vendor, supplierTalk, partners := false, false, false, false, false, false, false, false
		for i := lo; i < hi; i++ {
			n := toks[i].norm
			if supportTeamWords[n] || (i+1 < hi && isTeamPair(n, toks[i+1].norm)) {
				team = append(team, i)
			}
			if routeVerbsFirst[n] || (routeVerbsEn[n] && routedByMe(toks, i, lo, hi)) {
				verb = append(verb, i)
			}
			// German separable and noun forms: "geben wir nicht heraus",
			// "machen wir keine Angaben".
			share = share || shareVerbs[n] || n == "heraus" || (n == "angaben" && i > lo && toks[i-1].norm == "keine")
			neg = neg || refusalNegators[n]
			private = private || privateWords[n]
			info = info || infoWords[n]
			mine = mine || visitorPossessives[n]
			vendor = vendor || (vendorWords[n] && vendorPurpose(toks, i, lo, hi)) || (proposalWords[n] && proposalsTo(toks, i, lo, hi))
			partners = partners || (partnershipsPlural[n] && namesPartnerChannel(toks, lo, hi))
			supplierTalk = supplierTalk || (vendorWords[n] && !(i+1 < hi && toks[i+1].norm == "lock"))
		}
		if handsTo(toks, team, verb) {
			r |= routeSupport
		}
		if info && !mine && ((neg && share) || private) {
			r |= routeRefuse
		}
		if vendor && (strings.ContainsRune(text[s.start:s.end], '@') || namesPartnerChannel(toks, lo, hi)) || partners {
			r |= routeVendor
		}
		if supplierTalk && neg && !share && !info {
			// "Je ne fixe pas de rendez-vous commerciaux fournisseurs
			// ici", "we don't take vendor meetings in this chat": the bot
			// turned down a seller. Not sharing suppliers' data is a
			// refusal (routeRefuse), not this.
			r |= routeVendor
		}
		if neg && controlsIn(toks, lo, hi) {
			r |= routeNoOrders
		}
		if asksReference(toks, lo, hi) {
			r |= routeAsksRef
		}
		if !s.question && opensTicket(toks, lo, hi) {
			r |= routeTicket
		}
		if pointsToJobs(toks, lo, hi) {
			r |= routeJobs
		}
		if !s.question && (chatIsForOthers(toks, lo, hi) || notBuying(toks, lo, hi)) {
			r |= routeNotForYou
		}
		if confirmsBooking(toks, s.question, lo, hi) {
			r |= routeBooked
		}
	}
	return r
}

// buyingChannels are where a business sends sellers when it names no
// address: its e-mail, its procurement or purchasing team.
var buyingChannels = setOfWords([]string{"email", "mail", "procurement", "purchasing", "compras", "achats", "einkauf", "beschaffung", "correo",
	// "please use the general contact form", "el formulario de contacto".
	"form", "formulario", "formulaire", "kontaktformular", "formular"})

// partnershipsPlural name partnership requests as a kind of mail a
// business receives ("Parcerias são avaliadas pelo time de marketing",
// "for partnerships, email...", "collaborations humari marketing team
// dekhti hai"); a partnership the business has ("un partenariat avec un
// hôtel", "temos parceria com bancos") is singular.
var partnershipsPlural = setOfWords([]string{"partnerships", "parcerias", "partenariats", "alianzas", "kooperationen", "collaborations",
	"colaboraciones", "colaboracoes"})

// namesPartnerChannel: the sentence names where such requests go: an
// address, the e-mail, the purchasing or the marketing team.
func namesPartnerChannel(toks []token, lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if n := toks[i].norm; buyingChannels[n] || strings.HasPrefix(n, "marketing") || strings.ContainsRune(n, '@') {
			return true
		}
	}
	return false
}

// ticketOpened are the past participles a bot states a case with ("ich
// habe ein Support-Ticket angelegt", "I've opened a ticket", "abrí una
// incidencia", "chamado aberto", "ticket create kar diya").
var ticketOpened = setOfWords([]string{"opened", "created", "raised", "logged", "angelegt", "erstellt", "eroffnet", "aufgenommen",
	"abierto", "abri", "creado", "cree", "registrado", "registre", "aberto", "criado", "registrei", "ouvert", "enregistre", "diya", "di"})

// ticketWords name a support case the bot can open.
var ticketWords = setOfWords([]string{"ticket", "chamado", "protocolo", "incidencia", "ticketnummer", "vorgangsnummer", "reclamacao", "reclamacion"})

// opensTicket: the bot states the number of a support case, or that it
// opened one ("Ticket
// #48213 create kar diya hai", "Chamado aberto (#77315)", "ticket
// HK-7731"), which only a request about something already bought gets.
func opensTicket(toks []token, lo, hi int) bool {
	ticket, opened := false, false
	for i := lo; i < hi; i++ {
		// Without a number: the case stated as opened in the same
		// sentence, by its participle.
		opened = opened || ticketOpened[toks[i].norm]
		if !ticketWords[toks[i].norm] {
			continue
		}
		ticket = true
		for j := i + 1; j < hi && j <= i+3; j++ {
			if toks[j].isNum && len(toks[j].norm) >= 4 {
				return true
			}
		}
	}
	return ticket && opened
}

// pointsToJobs: the sentence sends the visitor to apply ("you can see open
// positions and apply on our careers page", "puedes enviar tu CV por
// ahí", "pode enviar pelo Trabalhe Conosco"): a careers word and a verb
// of applying or sending.
func pointsToJobs(toks []token, lo, hi int) bool {
	job, verb := false, false
	for i := lo; i < hi; i++ {
		n := toks[i].norm
		job = job || jobWords[n] || (n == "job" && i+1 < hi && toks[i+1].norm == "listings")
		verb = verb || (applyVerbs[n] && !botSends(toks, i, lo, hi))
	}
	return job && verb
}

// botSends: the sending verb at i is the bot's own, to the visitor ("je
// peux vous envoyer la brochure et le dossier de candidature", "I'll send
// you the curriculum", "main aapko curriculum ... bhej deta hoon"): the
// business offers its material, it does not ask for an applicant's. The
// visitor told to send ("vous pouvez envoyer votre CV", "aap resume bhej
// sakte hain", "send your CV") is still pointed to the hiring process.
func botSends(toks []token, i, lo, hi int) bool {
	if i > lo && toVisitor[toks[i-1].norm] {
		return true
	}
	if i+1 < hi && (toks[i+1].norm == "you" || toks[i+1].norm == "ihnen" || toks[i+1].norm == "dir") {
		return true
	}
	return toks[i].norm == "bhej" && i+1 < hi && firstPersonHelpers[toks[i+1].norm]
}

var (
	// A dative "you" right before the verb: "vous envoyer", "te mandar".
	toVisitor = setOfWords([]string{"vous", "te", "lhe", "ihnen", "dir"})
	// Hinglish helpers of a sending done by the speaker or now: "bhej deta
	// hoon", "bhej dunga", "bhej rahi hoon".
	firstPersonHelpers = setOfWords([]string{"deta", "deti", "dunga", "dungi", "denge", "raha", "rahi", "rahe"})
)

var (
	// A booking made: "you're booked for 11am Saturday", "Sie sind für
	// morgen 8:30 eingetragen", "te dejo agendada para el jueves".
	bookedWords = setOfWords([]string{
		"booked", "eingetragen", "gebucht", "reserviert", "vorgemerkt",
		"reservado", "reservada", "agendado", "agendada", "marcado", "marcada", "apuntado", "apuntada",
		"reserve", "reservee", "inscrit", "inscrite",
	})
	// "See you tomorrow": the visit is arranged.
	// "Le esperamos el sábado", "wir freuen uns auf Sie", "kal shaam
	// milte hain": the bot expects the visitor.
	seeYouPairs = [][2]string{{"see", "you"}, {"nos", "vemos"}, {"te", "esperamos"}, {"bis", "morgen"}, {"a", "demain"}, {"ate", "amanha"},
		{"le", "esperamos"}, {"lo", "esperamos"}, {"la", "esperamos"}, {"los", "esperamos"}, {"las", "esperamos"},
		{"te", "aguardamos"}, {"vos", "aguardamos"}, {"nous", "attendons"}, {"vous", "attend"},
		{"kal", "milte"}, {"baje", "milte"}, {"shaam", "milte"}, {"parso", "milte"}}
	// "Wir freuen uns auf Sie", not "auf Ihre Anfrage".
	seeYouObjects = setOfWords([]string{"sie", "dich", "euch"})
	// A sentence with one of these states a condition, not a booking
	// ("once you're booked", "cuando llegue, te esperamos"); "fully
	// booked" and "réservé aux patients" book nobody.
	bookingBlockers = setOfWords([]string{"if", "once", "when", "cuando", "quando", "si", "se", "wenn", "sobald", "falls", "lorsque", "jab",
		"fully", "completely", "aux", "pour", "not", "no", "nicht", "pas", "nao",
		// "sous réserve d'approbation", "subject to approval": a condition.
		"sous", "subject", "sujeto", "sujeta", "sujeito", "vorbehaltlich"})
)

// notedWords write a booking down ("Noted: Saturday 10 am", "Notiert:
// Rückruf morgen ab 8 Uhr", "pré-reservei sábado às 9h", "Combinado:
// quinta pela manhã", "c'est noté pour lundi 14h"): a confirmation only
// with the day or the hour it was written down for in the same sentence
// ("noted your address" books nothing).
var notedWords = setOfWords([]string{
	"noted", "notiert", "note", "notee", "anotado", "anotada", "anotei", "anote", "apunto", "apunte",
	"combinado", "combinada", "reservei", "agendei", "marquei", "agende", "reservo",
	// "Done — Thursday 8 am and Friday 7:30 am", "Listo: jueves a las
	// 10", "C'est fait, mardi 9h", "Erledigt: Freitag 14 Uhr", "ho gaya,
	// kal 11 baje"; a date held for the visitor ("den Seesaal für den
	// 12.12. optioniert", "I've put a hold on Friday").
	"done", "listo", "lista", "hecho", "feito", "pronto", "fait", "erledigt", "optioniert", "geblockt", "blockiert", "hold", "held",
})

// confirmsBooking: a statement by the bot that the visitor is booked,
// reserved or expected ("Booked you for Saturday 10:30", "¡Nos vemos
// mañana!", "Notiert: Probefahrt Samstag 10 Uhr"), not a question or a
// condition.
func confirmsBooking(toks []token, question bool, lo, hi int) bool {
	if question {
		return false
	}
	found, noted := false, false
	for i := lo; i < hi; i++ {
		n := toks[i].norm
		if bookingBlockers[n] && !((n == "pour" || n == "aux") && len(slotKeys(toks, i+1, min(hi, i+3))) > 0) {
			// "réservé aux patients" restricts; "réservé pour lundi
			// 14h" books.
			return false
		}
		if bookedWords[n] {
			found = true
		}
		noted = noted || notedWords[n]
		for _, p := range seeYouPairs {
			if n == p[0] && i+1 < hi && toks[i+1].norm == p[1] {
				found = true
			}
		}
		if n == "freuen" && i+3 < hi && toks[i+1].norm == "uns" && toks[i+2].norm == "auf" && seeYouObjects[toks[i+3].norm] {
			found = true
		}
	}
	return found || (noted && (len(slotKeys(toks, lo, hi)) > 0 || namesNearDay(toks, lo, hi)))
}

// nearDays and dayParts name the time of a noted booking without a
// weekday or an hour: "Notiert: Rückruf morgen Vormittag", "Noted: call
// tomorrow morning", "Anotado: visita amanhã cedo". A near day alone
// ("les échantillons partent demain") books nothing.
var (
	nearDays = setOfWords([]string{"tomorrow", "today", "morgen", "heute", "ubermorgen", "manana", "hoy", "amanha", "hoje",
		"demain", "aujourd", "kal", "aaj", "parso"})
	dayParts = setOfWords([]string{"morning", "afternoon", "evening", "vormittag", "nachmittag", "abend", "fruh", "mittag",
		"manana", "tarde", "noche", "manha", "cedo", "noite", "matin", "matinee", "midi", "soir", "subah", "shaam", "dopahar"})
)

func namesNearDay(toks []token, lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if !nearDays[toks[i].norm] {
			continue
		}
		for k := i + 1; k < hi && k <= i+3; k++ {
			if dayParts[toks[k].norm] {
				return true
			}
		}
	}
	return false
}

func isTeamPair(a, b string) bool {
	for _, p := range supportTeamPairs {
		if a == p[0] && b == p[1] {
			return true
		}
	}
	return false
}

// routedByMe: an English routing verb with the bot as its subject ("I'll
// route you", "we have escalated", "let me connect you") or a Hinglish
// "connect karta hoon".
func routedByMe(toks []token, i, lo, hi int) bool {
	for k := max(lo, i-3); k < i; k++ {
		if firstPerson[toks[k].norm] {
			return true
		}
	}
	return i+1 < hi && hinglishDo[toks[i+1].norm]
}

// handsTo: the support team is what the routing verb hands the request
// to: the team follows the verb ("I'll route you to our claims team", "te
// paso con el equipo de siniestros", "ich leite Sie an unsere
// Schadenabteilung"), or precedes a verb that closes the clause (German
// "... weiter", Hinglish "claims team se connect karta hoon"). "Plans
// include support, and I can connect you with sales" hands nothing to
// support.
func handsTo(toks []token, team, verb []int) bool {
	for _, v := range verb {
		for _, t := range team {
			if t > v && t-v <= 6 {
				return true
			}
			closing := closingVerbs[toks[v].norm] || (v+1 < len(toks) && hinglishDo[toks[v+1].norm])
			if closing && t < v && v-t <= 5 {
				return true
			}
		}
	}
	return false
}

// closingVerbs close a German clause after the team they hand to ("...
// an den Kundenservice weiter", "an den Kundenservice eskalieren", "an
// die Buchhaltung übergeben").
var closingVerbs = setOfWords([]string{"weiter", "weiterleiten", "weitergeleitet", "eskalieren", "eskaliert", "ubergeben", "weitergeben", "weitergegeben"})

var (
	purposeBefore = setOfWords([]string{"for", "para", "pour", "fur", "als", "aux", "los", "les", "las", "as"})
	purposeAfter  = setOfWords([]string{"liye", "proposals", "proposal", "inquiries", "enquiries", "requests", "offers", "pitches",
		"propuestas", "propostas", "propositions", "anfragen", "angebote", "solicitudes", "solicitacoes", "demandes"})
)

// proposalWords name what a seller sends: "for any proposal, write to
// contact@", "propuestas comerciales a compras@".
var proposalWords = setOfWords([]string{"proposal", "proposals", "propuesta", "propuestas", "proposta", "propostas", "proposition", "propositions"})

// proposalsTo: the proposal word names what the inbox is for ("pour toute
// proposition", "for proposals", "para propuestas"), or the visitor's own
// proposal the bot tells them to send there ("Vous pouvez envoyer votre
// proposition à", "Pode enviar a proposta para", "send your proposal
// to"): only a seller has a proposal to send. The bot sending its own
// proposal to the visitor ("je peux vous envoyer une proposition", "I'll
// send you a proposal") routes nobody.
func proposalsTo(toks []token, i, lo, hi int) bool {
	for k := max(lo, i-2); k < i; k++ {
		n := toks[k].norm
		if purposeBefore[n] || (visitorPossessives[n] && n != "su" && n != "sus") {
			return true
		}
		if applyVerbs[n] && n != "see" && k > lo && youMay(toks, k-1, lo) && !botSends(toks, k, lo, hi) {
			return true
		}
	}
	return false
}

// mayModals tell the visitor they may do something ("Pode enviar", "vous
// pouvez envoyer", "puedes mandar", "Sie können ... senden"); English
// "can" and "may" only after "you" ("I can send the proposal" is the
// bot's).
var mayModals = setOfWords([]string{"pode", "podem", "puede", "puedes", "pueden", "pouvez", "peux", "konnen", "kannst"})

// youMay: the word at j is such a modal.
func youMay(toks []token, j, lo int) bool {
	n := toks[j].norm
	if mayModals[n] {
		return true
	}
	return (n == "can" || n == "may") && j > lo && toks[j-1].norm == "you"
}

// vendorPurpose: the vendor word names who the inbox is for ("for vendor
// enquiries", "vendor proposals ke liye", "pour les fournisseurs"), not
// what the business works with ("we work with suppliers across Europe").
func vendorPurpose(toks []token, i, lo, hi int) bool {
	for k := max(lo, i-2); k < i; k++ {
		// "for vendors", or the request named first: "propositions de
		// partenariat", "propuestas de proveedores".
		if purposeBefore[toks[k].norm] || purposeAfter[toks[k].norm] {
			return true
		}
	}
	for k := i + 1; k < min(hi, i+4); k++ {
		if purposeAfter[toks[k].norm] {
			return true
		}
	}
	return false
}

var (
	// What a reference number identifies: something already bought.
	refNouns = setOfWords([]string{
		"order", "policy", "claim", "ticket", "customer", "contract", "booking", "account", "invoice", "tracking", "case", "membership",
		"pedido", "poliza", "siniestro", "cliente", "contrato", "reserva", "factura", "seguimiento", "expediente", "socio",
		"apolice", "sinistro", "fatura", "encomenda", "rastreio", "protocolo", "matricula",
		"commande", "police", "sinistre", "contrat", "dossier", "facture", "suivi", "client", "adherent",
		// A member's number or ID: "Member ID bata dijiye", "your member
		// number?", "¿tu número de miembro?", "numéro de membre".
		"member", "miembro", "membro", "membre", "mitglied",
	})
	refIDs = setOfWords([]string{"number", "no", "id", "reference", "ref", "numero", "nummer", "#", "code", "codigo"})
	// German compounds that are both.
	refCompounds = setOfWords([]string{
		"vertragsnummer", "kundennummer", "bestellnummer", "auftragsnummer", "sendungsnummer", "schadennummer",
		"rechnungsnummer", "policennummer", "versicherungsnummer", "vorgangsnummer", "mitgliedsnummer", "buchungsnummer",
		"schadensnummer", "ticketnummer",
	})
)

// asksReference: the sentence asks for the number of something already
// bought ("your claim number?", "¿tienes el número de póliza?", "Ihre
// Vertragsnummer?", "Order ID bata sakte hai?").
func asksReference(toks []token, lo, hi int) bool {
	var nouns, ids []int
	for i := lo; i < hi; i++ {
		n := toks[i].norm
		if refCompounds[n] {
			return true
		}
		if refNouns[n] {
			nouns = append(nouns, i)
		}
		if refIDs[n] {
			ids = append(ids, i)
		}
	}
	for _, a := range nouns {
		for _, b := range ids {
			if a-b <= 3 && b-a <= 3 {
				return true
			}
		}
	}
	return false
}

// referenceGiven: the visitor's answer holds a code or a long number (an
// order, policy or customer number) after the bot asked for one.
func referenceGiven(t *turnText) (string, bool) {
	for _, s := range t.sents {
		for i := s.tokStart; i < s.tokEnd; i++ {
			w := t.text[t.toks[i].start:t.toks[i].end]
			digits := 0
			for _, c := range w {
				if c >= '0' && c <= '9' {
					digits++
				}
			}
			if digits >= 4 {
				return t.text[s.start:s.end], true
			}
		}
	}
	return "", false
}

var (
	chatWords = setOfWords([]string{"chat", "chatbot", "canal", "channel", "kanal"})
	// "This chat", "este chat", "ce chat", "dieser Chat", "ye chat".
	chatDemonstratives = setOfWords([]string{"this", "este", "esse", "ce", "dieser", "ye", "yeh", "yah"})
	// What a chat is said to be for: "is for", "es para", "é para",
	// "réservé aux", "destiné aux", "dédié aux", "ist für ... gedacht",
	// "richtet sich an", "ke liye hai".
	chatPurpose = setOfWords([]string{"for", "para", "reserve", "reservee", "destine", "destinee", "dedie", "dediee", "dedicado", "dedicada",
		"pensado", "pensada", "fur", "gedacht", "richtet", "liye"})
	// The business declining to buy: "we're not looking for SEO
	// services", "no estamos buscando ese servicio", "no estamos
	// interesados", "nous ne cherchons pas", "wir suchen keine".
	notBuyingVerbs = setOfWords([]string{"looking", "interested", "buscando", "interesados", "interesadas", "procurando", "interessados", "interessadas",
		"cherchons", "interesses", "suchen", "interessiert"})
	weSubjects = setOfWords([]string{"we", "estamos", "nous", "wir"})
)

// chatIsForOthers: the bot says what its chat is for ("this chat is for
// customers looking for landscaping services", "este chat es para
// huéspedes", "ce chat est réservé aux propriétaires d'animaux", "Ich bin
// der Chat-Assistent für Patientenanfragen", "ye chat patients ke liye
// hai"). A bot says so only to someone it takes for neither a customer nor
// a prospect: a seller, a rival, a job seeker. A greeting that names the
// assistant ("Ich bin der Chat-Assistent der Sprachschule") restricts
// nothing.
func chatIsForOthers(toks []token, lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if !chatWords[toks[i].norm] {
			continue
		}
		named := i > lo && chatDemonstratives[toks[i-1].norm]
		assistant := i+1 < hi && (toks[i+1].norm == "assistent" || toks[i+1].norm == "assistant")
		if !named && !assistant {
			continue
		}
		for j := i + 1; j < hi && j <= i+10; j++ {
			if chatPurpose[toks[j].norm] {
				return true
			}
		}
	}
	return false
}

// notBuying: the business, as "we", denies looking for or being
// interested in what the visitor offers.
func notBuying(toks []token, lo, hi int) bool {
	we, neg := false, false
	for i := lo; i < hi; i++ {
		n := toks[i].norm
		switch {
		case weSubjects[n]:
			we = true
		case refusalNegators[n] || n == "keine" || n == "kein":
			neg = true
		case notBuyingVerbs[n] && we && neg && (n != "looking" || i+1 < hi && toks[i+1].norm == "for"):
			return true
		case n == "interesse" && i > lo && (toks[i-1].norm == "kein" || toks[i-1].norm == "keinerlei"):
			return true
		}
	}
	return false
}

// referenceNamed: the visitor names something already bought by its
// number ("order #PH-48213", "pedido 55821", "commande n° BD-48213",
// "Kundennummer 48213", "order id UK48213"): a reference noun, then within
// three words a code of four digits or more. Only a holder has one.
func referenceNamed(t *turnText) (string, bool) {
	for _, s := range t.sents {
		for i := s.tokStart; i < s.tokEnd; i++ {
			n := t.toks[i].norm
			if !refNouns[n] && !refCompounds[n] && n != "bestellung" && n != "rechnung" {
				continue
			}
			j := i + 1
			for j < s.tokEnd && j <= i+3 && (refIDs[t.toks[j].norm] || digitsIn(t.text[t.toks[j].start:t.toks[j].end]) == 0 && len(t.toks[j].norm) <= 2) {
				j++ // "number", "id", "n°", "#"
			}
			if j < s.tokEnd && codeDigits(t, j, s.tokEnd) {
				return t.text[s.start:s.end], true
			}
		}
	}
	return "", false
}

// codeDigits: the tokens from j, joined by nothing, a hyphen or a slash
// ("100-48217", "2024-77193", "RE-118734"), form a code of four digits or
// more that is not a lone year.
func codeDigits(t *turnText, j, end int) bool {
	n := digitsIn(t.text[t.toks[j].start:t.toks[j].end])
	k := j
	for k+1 < end && t.toks[k+1].start >= t.toks[k].end && t.toks[k+1].start-t.toks[k].end <= 1 && strings.Trim(t.text[t.toks[k].end:t.toks[k+1].start], "-/") == "" {
		k++
		n += digitsIn(t.text[t.toks[k].start:t.toks[k].end])
	}
	return n >= 4 && !(k == j && t.toks[j].year)
}

func digitsIn(w string) int {
	n := 0
	for _, c := range w {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// controlWords are what only an instruction to the bot touches: its
// settings, configuration and instructions, the commands it takes, the
// classification, rating or tag it gives a lead. A bot that says it cannot
// change, confirm or act on them ("I can't change any settings", "no
// guardo ni cambio clasificaciones", "Ich kann keine Einstufungen setzen",
// "não tenho acesso a esse tipo de comando", "lead tagging main manually
// nahi kar sakta") was given an order by the visitor.
var controlWords = setOfWords([]string{
	"settings", "setting", "configuration", "config", "instructions", "instruction", "command", "commands", "classification", "classifications", "tagging", "tier",
	"configuracion", "configuraciones", "instrucciones", "comando", "comandos", "clasificacion", "clasificaciones",
	"configuracao", "configuracoes", "instrucoes", "classificacao", "classificacoes",
	"parametres", "consignes", "commandes", "classement",
	"einstellungen", "konfiguration", "anweisungen", "befehle", "befehl", "einstufung", "einstufungen", "lead-einstufungen", "bewertungen",
})

// controlsIn: the sentence names one of them.
func controlsIn(toks []token, lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if controlWords[toks[i].norm] {
			return true
		}
	}
	return false
}
