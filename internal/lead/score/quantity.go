package score

import (
	"strconv"
	"strings"
)

// amount is a sum of money a visitor mentioned.
type amount struct {
	value    float64 // in units of the currency
	high     float64 // upper end of a range, 0 if none
	currency string  // ISO code when known: INR, USD, EUR, GBP
	per      string  // "month", "year", "hour"... when stated
	start    int     // token range
	end      int
}

var currencyWords = map[string]string{
	"inr": "INR", "rs": "INR", "rupees": "INR", "rupee": "INR", "usd": "USD", "dollars": "USD",
	"dollar": "USD", "bucks": "USD", "eur": "EUR", "euro": "EUR", "euros": "EUR", "gbp": "GBP",
	"pounds": "GBP", "brl": "BRL", "reais": "BRL", "dolares": "USD", "libras": "GBP", "chf": "CHF",
	"franken": "CHF", "mxn": "MXN", "pesos": "MXN", "rupaye": "INR", "rupaiye": "INR", "rupay": "INR",
	"rupiya": "INR", "rupye": "INR",
	// African, Gulf and other currencies visitors write: "2 500 000 FCFA",
	// "15 000 MAD", "KES 500,000", "R1.2 million" (the tokenizer reads the
	// rand's "R" as "zar").
	"fcfa": "XOF", "cfa": "XOF", "xof": "XOF", "xaf": "XAF", "mad": "MAD", "dirhams": "MAD", "dirham": "MAD",
	"dh": "MAD", "dhs": "MAD", "kes": "KES", "zar": "ZAR", "rand": "ZAR", "aed": "AED", "cad": "CAD", "aud": "AUD",
	"ngn": "NGN", "naira": "NGN", "tnd": "TND", "dzd": "DZD",
}

// scaleWords multiply the number before them. Lakh (100,000) and crore
// (10,000,000) are Indian and imply rupees.
var scaleWords = map[string]float64{
	"k": 1e3, "thousand": 1e3, "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "l": 1e5,
	"crore": 1e7, "crores": 1e7, "cr": 1e7, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9,
	"bn": 1e9, "billion": 1e9,
	// Spanish and Portuguese "mil" is a thousand (the tokenizer reads it
	// so); German "Tsd", French "mille", Hindi "hazaar".
	"tsd": 1e3, "tausend": 1e3, "mille": 1e3, "hazaar": 1e3, "hazar": 1e3, "hajar": 1e3,
	"millon": 1e6, "millones": 1e6, "milhao": 1e6, "milhoes": 1e6, "millions": 1e6, "mio": 1e6,
	"millionen": 1e6,
}

// periodAt reads the period after an amount at toks[j]: "a month", "per
// year", "/month", "pm". It returns the period and the index after it.
func periodAt(toks []token, j, hi int) (string, int) {
	if j < hi {
		if p, ok := periodWords[toks[j].norm]; ok && (periodAdjectives[toks[j].norm] || strings.HasSuffix(toks[j].norm, "ly")) {
			return p, j + 1
		}
		if j+1 < hi && perWords[toks[j].norm] {
			if p, ok := periodWords[toks[j+1].norm]; ok {
				return p, j + 2
			}
		}
	}
	return "", j
}

// cardinalWords are numbers written as words, which visitors use for round
// sums: "cinq mille euros", "dos mil dólares", "zwanzigtausend Euro",
// "paanch lakh". Only before a scale word (or glued to "tausend") are they
// read as money, and then only with a currency, an Indian scale or a
// thousand, as digits are.
var cardinalWords = map[string]float64{
	"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
	"twenty": 20, "thirty": 30, "fifty": 50, "hundred": 100,
	"dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10,
	"quince": 15, "veinte": 20, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "cien": 100,
	"dois": 2, "duas": 2, "quatro": 4, "sete": 7, "oito": 8, "nove": 9, "dez": 10, "vinte": 20,
	"trinta": 30, "quarenta": 40, "cinquenta": 50, "cem": 100,
	"deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10,
	"quinze": 15, "vingt": 20, "trente": 30, "quarante": 40, "cinquante": 50, "cent": 100,
	"zwei": 2, "drei": 3, "vier": 4, "funf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
	"zwolf": 12, "funfzehn": 15, "zwanzig": 20, "dreissig": 30, "vierzig": 40, "funfzig": 50, "hundert": 100,
	"ek": 1, "teen": 3, "char": 4, "paanch": 5, "panch": 5, "chhe": 6, "saat": 7, "aath": 8, "nau": 9,
	"das": 10, "bees": 20, "pachas": 50, "pachaas": 50,
}

// wordAmount reads a sum written in words at toks[i]: a cardinal and a
// scale word ("cinq mille"), or a German compound ending in "tausend". It
// returns the value and how many scale tokens follow the number's token.
func wordAmount(toks []token, i, hi int) (float64, int, bool) {
	w := toks[i].norm
	if n, ok := cardinalWords[w]; ok && i+1 < hi && toks[i+1].kind&kScale != 0 {
		m := scaleWords[toks[i+1].norm]
		if m >= 1e3 && len(toks[i+1].norm) > 1 {
			return n * m, 1, true
		}
	}
	if prefix, ok := strings.CutSuffix(w, "tausend"); ok {
		if n, ok := cardinalWords[prefix]; ok {
			return n * 1e3, 0, true
		}
	}
	return 0, 0, false
}

var periodWords = map[string]string{
	"month": "month", "monthly": "month", "mo": "month", "pm": "month", "year": "year", "yearly": "year",
	"annually": "year", "annum": "year", "pa": "year", "annual": "year", "week": "week", "weekly": "week",
	"day": "day", "daily": "day", "hour": "hour", "hr": "hour", "person": "person", "user": "user",
	"seat": "seat", "head": "person", "bot": "bot",
	"mes": "month", "mois": "month", "monat": "month", "mahina": "month", "mahine": "month",
	"ano": "year", "annee": "year", "an": "year", "jahr": "year", "saal": "year",
	"semana": "week", "semaine": "week", "woche": "week", "hafta": "week", "dia": "day", "jour": "day",
	"tag": "day", "din": "day", "hora": "hour", "heure": "hour", "stunde": "hour",
	"usuario": "user", "utilisateur": "user", "nutzer": "user",
	"mensual": "month", "mensuales": "month", "mensal": "month", "mensais": "month", "mensuel": "month",
	"mensuels": "month", "mensuelle": "month", "monatlich": "month", "anual": "year", "anuales": "year",
	"annuel": "year", "annuelle": "year", "jahrlich": "year", "semanal": "week", "hebdomadaire": "week",
	"wochentlich": "week", "diario": "day", "diarios": "day", "taglich": "day", "quotidien": "day",
}

// periodAdjectives are period words that need no "per": "monthly",
// "mensual", "monatlich".
var periodAdjectives = setOfWords([]string{
	"pm", "pa", "annually", "monthly", "yearly", "weekly", "daily", "hourly", "annual",
	"mensual", "mensuales", "mensal", "mensais", "mensuel", "mensuels", "mensuelle", "monatlich", "anual",
	"anuales", "annuel", "annuelle", "jahrlich", "semanal", "hebdomadaire", "wochentlich", "diario",
	"diarios", "taglich", "quotidien",
})

// perWords introduce a period: "a month", "al mes", "par mois", "pro Monat".
var perWords = setOfWords([]string{
	"a", "per", "every", "each", "an", "al", "por", "par", "pro", "im", "ao", "cada", "chaque", "je",
	"jeden", "jede", "jeder",
})

// parseAmounts finds sums of money in toks[lo:hi] (one sentence): "$2,000",
// "₹8,00,000", "Rs.50000", "50k", "1.5 Cr", "70-80 lakh", "$3k/month",
// "40 rupees". A bare number is money only with a scale word or a
// currency; the caller decides what a bare number means from context.
func parseAmounts(toks []token, lo, hi int) []amount {
	var out []amount
	for i := lo; i < hi; i++ {
		a, ok := amountAt(toks, i, hi)
		if !ok {
			continue
		}
		out = append(out, a)
		i = a.end - 1
	}
	return out
}

func amountAt(toks []token, i, hi int) (amount, bool) {
	a := amount{start: i}
	j := i
	if toks[j].kind&kCurrency != 0 && j+1 < hi && toks[j+1].isNum {
		a.currency = currencyWords[toks[j].norm]
		j++
	}
	if v, unit, ok := wordAmount(toks, j, hi); ok {
		// "cinq mille euros", "zwanzigtausend Euro", "paanch lakh".
		a.value = v
		j += 1 + unit
		// A round thousand in words is what "40 mil" is in digits: possible
		// money for the caller to judge ("separamos uns quarenta mil pra
		// cozinha"); a larger word scale needs a currency.
		thousands := unit == 0 || scaleWords[toks[j-1].norm] == 1e3
		if j < hi && toks[j].kind&kCurrency != 0 {
			a.currency = orDefault(a.currency, currencyWords[toks[j].norm])
			j++
		}
		if v >= 1e5 && unit == 1 && (toks[j-1].norm == "lakh" || toks[j-1].norm == "lakhs" || toks[j-1].norm == "crore" || toks[j-1].norm == "crores") {
			a.currency = orDefault(a.currency, "INR")
		}
		if a.currency == "" && !thousands {
			return amount{}, false
		}
		a.per, a.end = periodAt(toks, j, hi)
		return a, true
	}
	if !toks[j].isNum || toks[j].ordinal {
		return amount{}, false
	}
	scale, scaled := 1.0, false
	if toks[j].mult != "" {
		scale, scaled = scaleWords[toks[j].mult], true
		if toks[j].mult == "lakh" || toks[j].mult == "crore" {
			a.currency = orDefault(a.currency, "INR")
		}
	}
	a.value = toks[j].num
	j++
	if !scaled && j < hi && toks[j].kind&kScale != 0 {
		if m, ok := scaleWords[toks[j].norm]; ok && toks[j].norm != "l" && toks[j].norm != "m" && toks[j].norm != "b" {
			scale, scaled = m, true
			if m == 1e5 || m == 1e7 {
				a.currency = orDefault(a.currency, "INR")
			}
			j++
		}
	}
	// A range: "70-80 lakh", "$2k-$3k", "10 to 15 lakh".
	if j+1 < hi && toks[j].norm == "to" {
		k := j + 1
		if toks[k].kind&kCurrency != 0 && k+1 < hi {
			k++
		}
		if toks[k].isNum && !toks[k].ordinal {
			high := toks[k].num
			hs, hScaled := 1.0, false
			if toks[k].mult != "" {
				hs, hScaled = scaleWords[toks[k].mult], true
			}
			k++
			if !hScaled && k < hi {
				if m, ok := scaleWords[toks[k].norm]; ok && len(toks[k].norm) > 1 {
					hs, hScaled = m, true
					if m == 1e5 || m == 1e7 {
						a.currency = orDefault(a.currency, "INR")
					}
					k++
				}
			}
			if !scaled && hScaled {
				scale, scaled = hs, true
			}
			if !hScaled {
				hs = scale
			}
			a.high = high * hs
			j = k
		}
	}
	a.value *= scale
	if j < hi && toks[j].kind&kCurrency != 0 {
		a.currency = orDefault(a.currency, currencyWords[toks[j].norm])
		j++
	}
	a.per, j = periodAt(toks, j, hi)
	a.end = j
	if a.currency == "" && !scaled {
		return amount{}, false
	}
	if a.currency == "" && scale > 1e3 {
		// "10m downloads" is a count; "50k" stays possible money for the
		// caller to judge from context.
		return amount{}, false
	}
	return a, true
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// formatAmount renders an amount for a reading: "INR 800,000 a month".
func formatAmount(a amount) string {
	s := groupDigits(a.value)
	if a.high > 0 {
		s += "–" + groupDigits(a.high)
	}
	if a.currency != "" {
		s = a.currency + " " + s
	}
	if a.per != "" {
		s += " per " + a.per
	}
	return s
}

func groupDigits(v float64) string {
	if v != float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	d := strconv.FormatInt(int64(v), 10)
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Context words around an amount decide what it is.
var (
	budgetCues = map[string]bool{
		"budget": true, "budgeted": true, "spend": true, "spending": true, "afford": true, "invest": true,
		"investing": true, "pay": true, "paying": true, "allocated": true, "approved": true, "sanctioned": true,
		"earmarked": true, "upto": true, "tak": true, "max": true, "maximum": true, "within": true,
		"range": true, "fine": true, "ok": true, "okay": true, "theek": true, "thik": true, "works": true,
		"justified": true, "comfortable": true, "aside": true, "reserved": true, "sign": true, "cap": true,
		"ceiling": true, "affordable": true, "acceptable": true, "reasonable": true, "loan": true,
		"presupuesto": true, "orcamento": true, "verba": true, "partida": true, "invertir": true, "investir": true,
		"gastar": true, "pagar": true, "payer": true, "depenser": true, "ausgeben": true, "zahlen": true,
		"bezahlen": true, "investieren": true, "kharch": true, "kharcha": true, "hasta": true, "ate": true,
		"jusque": true, "maximo": true, "maximal": true, "hochstens": true, "aprobado": true, "aprovado": true,
		"aprovada": true, "valide": true, "approuve": true, "genehmigt": true, "freigegeben": true,
		"disponible": true, "disponivel": true, "reservado": true, "reservada": true, "asignado": true,
		"eingeplant": true, "prevu": true, "alloue": true, "mensuales": true,
		// Money set aside, as "aside" and "earmarked" are in English.
		"apartado": true, "apartados": true, "apartamos": true, "separado": true, "separados": true, "separamos": true,
		"separei": true, "guardamos": true, "reservamos": true, "zuruckgelegt": true, "beiseitegelegt": true,
	}
	costCues = map[string]bool{
		"costs": true, "cost": true, "costing": true, "lose": true, "losing": true, "lost": true,
		"loss": true, "losses": true, "wasting": true, "waste": true,
	}
	notBudgetCues = map[string]bool{
		"cover": true, "coverage": true, "assured": true, "revenue": true, "turnover": true, "salary": true,
		"ctc": true, "returns": true, "saving": true, "savings": true, "save": true, "followers": true,
		"sales": true, "gmv": true, "funding": true, "raised": true, "valuation": true,
		"facturacion": true, "facturamos": true, "ingresos": true, "ventas": true, "vendas": true,
		"faturamento": true, "faturamos": true, "receita": true, "chiffre": true, "umsatz": true,
		"ventes": true, "salario": true, "sueldo": true, "salaire": true, "gehalt": true, "turnover.": true,
	}
)

// moneyFindings reads the amounts of one sentence.
func moneyFindings(t *turnText, s *sentence, out []finding) ([]finding, []amount) {
	amts := parseAmounts(t.toks, s.tokStart, s.tokEnd)
	// A bare number right after "budget" is money too: "budget 6000 per month".
	for i := s.tokStart; i+1 < s.tokEnd; i++ {
		if t.toks[i].norm != "budget" {
			continue
		}
		j := i + 1
		for j < s.tokEnd && j < i+4 && !t.toks[j].isNum {
			switch t.toks[j].norm {
			case "is", "of", "around", "about", "approximately", "roughly", "upto", "up", "to", "hai":
				j++
				continue
			}
			break
		}
		if j < s.tokEnd && t.toks[j].isNum && t.toks[j].num >= 100 && !coveredBy(amts, j) {
			a, _ := bareAmount(t.toks, j, s.tokEnd)
			amts = append(amts, a)
		}
	}
	// A bare number answering "what's your budget?".
	if len(amts) == 0 && t.asked.has(fBudget) && s.tokEnd-s.tokStart <= 8 {
		for j := s.tokStart; j < s.tokEnd; j++ {
			if t.toks[j].isNum && t.toks[j].num >= 100 && !t.toks[j].ordinal {
				a, _ := bareAmount(t.toks, j, s.tokEnd)
				amts = append(amts, a)
				break
			}
		}
	}
	// A count of things per period ("3 mil pedidos por mês", "1.500 colis
	// par mois") is a workload, not money, in any language: no currency
	// or budget word in the sentence, and a noun between the number and
	// the period.
	moneyCue := false
	for i := s.tokStart; i < s.tokEnd; i++ {
		moneyCue = moneyCue || t.toks[i].kind&(kBudgetCue|kCurrency) != 0
	}
	kept := amts[:0]
	for _, am := range amts {
		if end, ok := countPerPeriod(t.toks, am.end, s.tokEnd); ok && am.currency == "" && !moneyCue {
			text := t.text[t.toks[am.start].start:t.toks[end-1].end]
			out = append(out, finding{f: fMetrics, level: 65, reading: "volume: " + text, turn: t.index,
				order: orderOf(t.index, am.start), quote: quoteOf(t, s, am.start, end), offScope: t.offScope})
			continue
		}
		if am.currency == "" && !moneyCue && am.end < s.tokEnd && (sizeNounSet[t.toks[am.end].norm] || volumeNouns[t.toks[am.end].norm] || measureUnits[t.toks[am.end].norm]) {
			// "2 mil empleados", "cinco mil clientes", "10k users": a
			// count of the noun that follows, not money.
			continue
		}
		kept = append(kept, am)
	}
	amts = kept
	if len(amts) == 0 {
		return out, nil
	}
	var budget, cost, notBudget bool
	for i := s.tokStart; i < s.tokEnd; i++ {
		n := t.toks[i].norm
		k := t.toks[i].kind
		budget = budget || k&kBudgetCue != 0 || (n == "up" && i+1 < s.tokEnd && t.toks[i+1].norm == "to")
		cost = cost || (k&kCostCue != 0 && i+1 < s.tokEnd && (t.toks[i+1].norm == "us" || t.toks[i+1].norm == "about" || t.toks[i+1].isNum))
		notBudget = notBudget || k&kNotBudgetCue != 0
	}
	budget = budget || t.asked.has(fBudget) || bareFigure(t.toks, s, amts)
	for _, a := range amts {
		text := t.text[t.toks[a.start].start:t.toks[a.end-1].end]
		f := finding{turn: t.index, order: orderOf(t.index, a.start), quote: quoteOf(t, s, a.start, a.end), offScope: t.offScope}
		switch {
		case cost && !budget:
			f.f, f.level, f.reading = fMetrics, 80, "cost of the problem: "+text
			out = append(out, f)
			f.f, f.level = fPain, 70
			out = append(out, f)
			continue
		case notBudget && !budget:
			if revenueIn(t.toks, s) && !s.question {
				// "abhi humara turnover hai around 40 lakh", "facturamos
				// 2 millones al año": the size of the visitor's business,
				// not what they would spend.
				f.f, f.level, f.reading = fSize, 60, "revenue: "+text
				out = append(out, f)
			}
			continue
		case budget:
			f.level, f.reading = 90, "explicit budget: "+text
		case s.question:
			f.level, f.reading = 45, "price expectation: "+text
		default:
			f.level, f.reading = 60, "amount mentioned: "+text
		}
		if a.high > 0 || a.currency != "" || a.per != "" {
			f.reading += " (" + formatAmount(a) + ")"
		}
		f.f = fBudget
		if isHedged(t.toks, a.start, a.end) {
			f.level = hedge(f.level)
		}
		out = append(out, f)
	}
	return out, amts
}

// bareFigure: a sentence that is only an amount ("Around 60-70 lakhs.")
// states a budget.
func bareFigure(toks []token, s *sentence, amts []amount) bool {
	if len(amts) != 1 {
		return false
	}
	for i := s.tokStart; i < s.tokEnd; i++ {
		if coveredBy(amts, i) {
			continue
		}
		switch toks[i].norm {
		case "around", "about", "approximately", "approx", "roughly", "somewhere", "maybe", "budget", "max", "tak", "hai", "is", "my", "our", "the", "upto", "up", "to":
			continue
		}
		return false
	}
	return true
}

func coveredBy(amts []amount, i int) bool {
	for _, a := range amts {
		if i >= a.start && i < a.end {
			return true
		}
	}
	return false
}

// bareAmount reads a number with no currency as money, with its period.
func bareAmount(toks []token, i, hi int) (amount, bool) {
	a := amount{value: toks[i].num, start: i, end: i + 1}
	if s, ok := scaleWords[toks[i].mult]; ok {
		a.value *= s
	}
	j := i + 1
	if j+1 < hi && (toks[j].norm == "a" || toks[j].norm == "per") {
		if p, ok := periodWords[toks[j+1].norm]; ok {
			a.per, a.end = p, j+2
		}
	}
	return a, true
}

// sizeNouns follow a number that gives the size of a team or business.
var sizeNouns = []string{
	"person", "people", "employees", "employee", "staff", "members", "member", "agents", "seats",
	"lawyers", "doctors", "nurses", "teachers", "stores", "outlets", "branches", "clinics", "hospitals",
	"labs", "locations", "dealers", "clients", "websites", "sites", "reps", "salespeople", "schools",
	"campuses", "properties", "trucks", "vehicles", "drivers", "beds", "rooms", "offices", "warehouses",
	"franchises", "restaurants", "hotels", "counsellors", "counselors", "advisors", "brokers", "sellers",
	"centres", "centers", "showrooms", "factories", "plants", "adults", "kids", "travellers", "travelers",
	"guests", "pax", "users", "seat", "room", "bed", "desk", "desks", "store", "branch", "member",
	"empleados", "trabajadores", "personas", "agentes", "tiendas", "sucursales", "clinicas", "sedes",
	"oficinas", "vendedores", "comerciales", "asesores", "abogados", "medicos", "profesores", "habitaciones",
	"hoteles", "restaurantes", "usuarios", "consultores",
	"funcionarios", "colaboradores", "pessoas", "atendentes", "lojas", "filiais", "unidades", "advogados",
	"professores", "quartos", "usuarios",
	"employes", "salaries", "personnes", "collaborateurs", "conseillers", "magasins", "boutiques",
	"agences", "cliniques", "commerciaux", "vendeurs", "avocats", "medecins", "chambres", "utilisateurs",
	"mitarbeiter", "mitarbeitende", "mitarbeitern", "personen", "leute", "filialen", "standorte", "praxen",
	"vertriebler", "berater", "anwalte", "arzte", "zimmer", "kollegen", "nutzer",
	// The English fleet, site and bed counts in the other languages.
	"camiones", "vehiculos", "conductores", "choferes", "escuelas", "colegios", "camas", "almacenes", "locales",
	"caminhoes", "veiculos", "motoristas", "escolas", "leitos", "camas", "armazens", "galpoes", "restaurantes",
	"camions", "vehicules", "chauffeurs", "ecoles", "lits", "entrepots", "restaurants", "hotels", "succursales", "sites",
	"lkw", "fahrzeuge", "fahrer", "schulen", "betten", "lager", "restaurants", "hotels", "geschafte", "buros",
	"gaadiyan", "gaadi", "trucks", "dukaan", "dukane", "branches",
	"log", "logon", "logo", "banda", "bande",
}

var sizeNounSet = setOfWords(sizeNouns)

// volumeNouns after a number describe the volume of the problem: metrics.
var volumeNouns = setOfWords(classes["volume"])

// targetVerbs make a number a goal rather than a fact.
var targetVerbs = setOfWords([]string{
	"cut", "reduce", "reducing", "increase", "increasing", "improve", "improving", "lift", "grow",
	"boost", "double", "halve", "lower", "target", "goal", "achieve", "from",
})

func setOfWords(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

var timeUnits = setOfWords([]string{"hours", "hour", "minutes", "minute", "mins", "min", "seconds", "secs", "days"})
var waitWords = setOfWords([]string{"response", "wait", "waiting", "hold", "handle", "resolution", "reply", "time", "turnaround", "takes", "take", "respond"})

// numberFindings reads team sizes and metrics from the numbers of one
// sentence that are not money.
func numberFindings(t *turnText, s *sentence, amts []amount, out []finding) []finding {
	target, waiting := false, false
	for i := s.tokStart; i < s.tokEnd; i++ {
		k := t.toks[i].kind
		target = target || k&kTarget != 0 || (t.toks[i].norm == "get" && i+2 < s.tokEnd && t.toks[i+2].norm == "to")
		waiting = waiting || k&kWait != 0
	}
	sizeSeen, metricSeen := false, false
	for i := s.tokStart; i < s.tokEnd; i++ {
		tk := &t.toks[i]
		if !tk.isNum || tk.ordinal || coveredBy(amts, i) || nextToMonth(t.toks, i, s) {
			continue
		}
		j := i + 1
		if j < s.tokEnd && t.toks[j].norm == "+" {
			j++
		}
		next := func(k int) string {
			if k < s.tokEnd {
				return t.toks[k].norm
			}
			return ""
		}
		text := t.text[tk.start:tk.end]
		emit := func(f facet, level int, reading string, end int) {
			out = append(out, finding{f: f, level: level, reading: reading, turn: t.index,
				order: orderOf(t.index, i), quote: quoteOf(t, s, i, end), offScope: t.offScope})
		}
		switch {
		case next(j) == "%" || next(j) == "percent":
			if !metricSeen {
				level, what := 70, "metric: "
				if target {
					level, what = 90, "target metric: "
				}
				emit(fMetrics, level, what+text+"%", j+1)
				metricSeen = true
			}
		case volumeNouns[next(j)] || (volumeNouns[next(j+1)] && !sizeNounSet[next(j)]) || next(j) == "times":
			end := j + 1
			if !volumeNouns[next(j)] && next(j) != "times" {
				end = j + 2
			}
			if sizeNounSet[next(j)] && !isPer(next(end)) {
				emit(fSize, 75, "size: "+t.text[tk.start:t.toks[end-1].end], end)
				sizeSeen = true
				continue
			}
			if !metricSeen {
				level, what := 70, "volume: "
				if target {
					level, what = 90, "target: "
				}
				text := t.text[tk.start:t.toks[end-1].end]
				emit(fMetrics, level, what+text, end)
				metricSeen = true
				if perDay(tk.num, next(end), next(end+1)) >= workloadPerDay {
					emit(fPain, 55, "workload: "+text+" "+t.text[t.toks[end].start:t.toks[end+1].end], end+2)
				}
			}
		case sizeNounSet[next(j)] || (sizeNounSet[next(j+1)] && !t.toks[min(j, s.tokEnd-1)].isNum):
			end := j + 1
			if !sizeNounSet[next(j)] {
				end = j + 2
			}
			if !sizeSeen {
				emit(fSize, 75, "size: "+t.text[tk.start:t.toks[end-1].end], end)
				sizeSeen = true
			}
		case isPer(next(j)) && periodWords[next(j+1)] != "" && tk.num >= 10:
			if !metricSeen {
				text := t.text[tk.start:t.toks[j+1].end]
				emit(fMetrics, 65, "volume: "+text, j+2)
				metricSeen = true
				if perDay(tk.num, next(j), next(j+1)) >= workloadPerDay {
					emit(fPain, 55, "workload: "+text, j+2)
				}
			}
		case !coveredBy(amts, i):
			// "20 Paletten pro Woche", "1 500 colis par mois": a count
			// of whatever they handle, per period.
			if end, ok := countPerPeriod(t.toks, j, s.tokEnd); ok && tk.num >= 10 && !metricSeen {
				text := t.text[tk.start:t.toks[end-1].end]
				emit(fMetrics, 65, "volume: "+text, end)
				metricSeen = true
				if perDay(tk.num, t.toks[end-2].norm, t.toks[end-1].norm) >= workloadPerDay {
					emit(fPain, 55, "workload: "+text, end)
				}
			} else if timeUnits[next(j)] && waiting && !metricSeen {
				emit(fMetrics, 70, "time metric: "+t.text[tk.start:t.toks[j].end], j+1)
				metricSeen = true
			}
		case timeUnits[next(j)] && waiting:
			if !metricSeen {
				emit(fMetrics, 70, "time metric: "+t.text[tk.start:t.toks[j].end], j+1)
				metricSeen = true
			}
		}
	}
	// "team of 12"
	for i := s.tokStart; i+2 < s.tokEnd && !sizeSeen; i++ {
		if teamWords[t.toks[i].norm] && ofWords[t.toks[i+1].norm] && t.toks[i+2].isNum {
			out = append(out, finding{f: fSize, level: 75, reading: "size: team of " + t.text[t.toks[i+2].start:t.toks[i+2].end],
				turn: t.index, order: orderOf(t.index, i), quote: quoteOf(t, s, i, i+3), offScope: t.offScope})
			sizeSeen = true
		}
	}
	return out
}

// teamWords open a size: "team of 12", "equipo de 12", "Team von 8".
var teamWords = setOfWords([]string{"team", "equipo", "equipe", "time"})

// workloadPerDay is the volume of their own work (tickets, calls, orders a
// day) from which a visitor describing it is describing a pain: at 20 a day
// someone spends real time on it; "10 orders a week" is a small shop's
// normal.
const workloadPerDay = 20

// perDay converts "N a week" and the like to a daily rate; 0 when no
// period is given.
func perDay(n float64, per, period string) float64 {
	if !isPer(per) {
		return 0
	}
	switch periodWords[period] {
	case "day":
		return n
	case "week":
		return n / 7
	case "month":
		return n / 30
	case "year":
		return n / 365
	case "hour":
		return n * 8
	}
	return 0
}

func isPer(w string) bool { return perWords[w] }

func nextToMonth(toks []token, i int, s *sentence) bool {
	if i+1 < s.tokEnd && toks[i+1].kind&kMonth != 0 {
		return true
	}
	if i > s.tokStart && toks[i-1].kind&kMonth != 0 {
		return true
	}
	return toks[i].year
}

var classSets = func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for k, v := range classes {
		m[k] = setOfWords(v)
	}
	return m
}()

func classSet(name string) map[string]bool { return classSets[name] }

// calendarPeriods are the periods a workload is counted in.
var calendarPeriods = setOfWords([]string{"day", "week", "month", "year", "hour", "quarter"})

// countPerPeriod: from toks[k], one or two words naming what is counted,
// then "per"/"par"/"pro"/"por"/"a" and a calendar period ("colis par
// mois", "Paletten pro Woche", "orders a day"). It returns the end of the
// period word.
func countPerPeriod(toks []token, k, hi int) (int, bool) {
	for n := 1; n <= 2; n++ {
		if k+n+1 >= hi {
			return 0, false
		}
		w := toks[k+n-1]
		if w.isNum || isPer(w.norm) || w.kind&kCurrency != 0 || periodWords[w.norm] != "" {
			return 0, false
		}
		if isPer(toks[k+n].norm) && calendarPeriods[periodWords[toks[k+n+1].norm]] {
			return k + n + 2, true
		}
	}
	return 0, false
}

// measureUnits after a number make it a measure, not money: "190 mil km",
// "600,000 sq ft", "4.2 GWh", "20 toneladas"; so does an audience ("48 mil
// seguidores", "85k abonnés", "80k followers").
var measureUnits = setOfWords([]string{
	"km", "kms", "kilometers", "kilometres", "kilometros", "quilometros", "kilometre", "kilometer", "miles", "meilen",
	"kg", "kgs", "kilos", "tons", "tonnes", "toneladas", "tonnen", "t",
	"sq", "sqft", "m2", "m²", "qm", "acres", "hectares", "hectareas",
	"liters", "litres", "litros", "liter", "kwh", "mwh", "gwh", "kw", "mw", "kwp", "gb", "tb",
	"followers", "follower", "seguidores", "abonnes", "abonnenten", "subscribers", "suscriptores", "inscritos", "views", "visualizacoes", "visualizaciones", "vues", "aufrufe",
})

// revenueWords name a business's own sales.
var revenueWords = setOfWords([]string{"revenue", "revenues", "turnover", "sales", "gmv", "facturacion", "facturamos", "ingresos", "ventas",
	"vendas", "faturamento", "faturamos", "receita", "chiffre", "umsatz", "jahresumsatz", "ventes"})

func revenueIn(toks []token, s *sentence) bool {
	for i := s.tokStart; i < s.tokEnd; i++ {
		if revenueWords[toks[i].norm] {
			return true
		}
	}
	return false
}
