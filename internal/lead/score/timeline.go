package score

import (
	"time"
)

// durationUnits are the days in one unit of a relative timeline.
var durationUnits = map[string]float64{
	"day": 1, "days": 1, "din": 1, "week": 7, "weeks": 7, "hafte": 7, "hafton": 7, "hafta": 7,
	"month": 30, "months": 30, "mahine": 30, "mahina": 30, "mahino": 30, "year": 365, "years": 365,
	"saal": 365, "quarter": 91, "quarters": 91,
	"dia": 1, "dias": 1, "jour": 1, "jours": 1, "tag": 1, "tage": 1, "tagen": 1,
	"semana": 7, "semanas": 7, "semaine": 7, "semaines": 7, "woche": 7, "wochen": 7,
	"mes": 30, "meses": 30, "mois": 30, "monat": 30, "monate": 30, "monaten": 30,
	"ano": 365, "anos": 365, "an": 365, "ans": 365, "jahr": 365, "jahre": 365, "jahren": 365,
	"trimestre": 91, "trimestres": 91, "quartal": 91, "quartale": 91,
}

var numberWords = map[string]float64{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3, "ek": 1, "do": 2, "teen": 3, "char": 4,
	"dos": 2, "tres": 3, "cuatro": 4, "seis": 6, "duas": 2, "dois": 2, "quatro": 4,
	"deux": 2, "trois": 3, "quatre": 4, "zwei": 2, "drei": 3, "vier": 4, "sechs": 6,
}

// leadIn words introduce a relative timeline: "in 2 weeks", "within 6 weeks".
// "Daqui 2 anos", "d'ici deux ans", "de aquí a dos años" too.
var leadIn = setOfWords([]string{"in", "within", "next", "under", "inside", "agle", "coming", "daqui", "ici", "aqui",
	"en", "dentro", "proximos", "proximas", "em", "dans", "sous", "innerhalb", "binnen", "nachsten"})

// fillers may sit between the lead-in and the number.
var fillers = setOfWords([]string{"about", "around", "approximately", "approx", "roughly", "the", "a", "less", "than", "max", "maximum", "just", "only", "like", "of",
	"de", "unos", "unas", "las", "los", "cerca", "menos", "as", "os", "uns", "umas", "ici", "environ", "moins", "von", "etwa", "ca", "der", "den", "die", "nachsten", "proximos", "proximas", "prochains", "prochaines"})

// levelForDays turns a distance in days into a timeline strength: the
// sooner they mean to act, the more sales-ready they are.
func levelForDays(days float64) int {
	switch {
	case days <= 7:
		return 95
	case days <= 21:
		return 90
	case days <= 45:
		return 80
	case days <= 100:
		return 65
	case days <= 200:
		return 50
	case days <= 400:
		return 30
	}
	return 10
}

// timeFindings reads relative durations and calendar dates in a sentence.
// Without a reference time a calendar date still shows a plan, so it gets
// a middle strength; with one it is scored by how far away it is.
func timeFindings(t *turnText, s *sentence, now time.Time, out []finding) []finding {
	toks := t.toks
	emit := func(level int, reading string, start, end int) {
		if isHedged(toks, start, end) {
			level = hedge(level)
			reading = "hedged: " + reading
		}
		if isNegated(toks, start, end) {
			out = append(out, finding{f: fTimeline, deny: true, reading: "denies: " + reading, turn: t.index,
				order: orderOf(t.index, start), quote: quoteOf(t, s, start, end), offScope: t.offScope})
			return
		}
		out = append(out, finding{f: fTimeline, level: level, reading: reading, turn: t.index,
			order: orderOf(t.index, start), quote: quoteOf(t, s, start, end), offScope: t.offScope})
	}
	span := func(a, b int) string { return t.text[toks[a].start:toks[b-1].end] }
	months := classSet("month")
	for i := s.tokStart; i < s.tokEnd; i++ {
		n := toks[i].norm
		// "in 2 weeks", "within 6 weeks", "in 2-3 months", "next two weeks".
		if toks[i].kind&kLeadIn != 0 {
			j := i + 1
			for j < s.tokEnd && toks[j].kind&kFiller != 0 {
				j++
			}
			if v, k, ok := numberAt(toks, j, s.tokEnd); ok && k < s.tokEnd && toks[k].kind&kDuration != 0 {
				if u, ok := durationUnits[toks[k].norm]; ok {
					days := v * u
					emit(levelForDays(days), "timeline: "+span(i, k+1), i, k+1)
					i = k
					continue
				}
			}
		}
		// Hindi order: "2 hafte mein", "6 mahine me".
		if v, k, ok := numberAt(toks, i, s.tokEnd); ok && k+1 < s.tokEnd && toks[k].kind&kDuration != 0 {
			// "4-5 saal baad": after that long.
			if u, ok := durationUnits[toks[k].norm]; ok && (toks[k+1].norm == "mein" || toks[k+1].norm == "me" || toks[k+1].norm == "main" || toks[k+1].norm == "baad") {
				emit(levelForDays(v*u), "timeline: "+span(i, k+2), i, k+2)
				i = k + 1
				continue
			}
		}
		// "Since March", "seit Q1", "depuis janvier": how long something
		// has lasted, not when it is wanted.
		if sinceBefore(toks, i, s) && (toks[i].kind&kMonth != 0 || (len(n) == 2 && n[0] == 'q' && n[1] >= '1' && n[1] <= '4')) {
			continue
		}
		// Calendar months: "by March", "15 March", "before June", "in December".
		if toks[i].kind&kMonth != 0 && monthIsDate(toks, i, s) {
			start, end := i, i+1
			day := 0
			if i > s.tokStart && toks[i-1].isNum && toks[i-1].num >= 1 && toks[i-1].num <= 31 {
				start, day = i-1, int(toks[i-1].num)
				// "12 to 18 February": the range starts earlier.
				if start-2 >= s.tokStart && toks[start-1].norm == "to" && toks[start-2].isNum {
					start, day = start-2, int(toks[start-2].num)
				}
			} else if i+1 < s.tokEnd && toks[i+1].isNum && toks[i+1].num >= 1 && toks[i+1].num <= 31 && toks[i+1].clause == toks[i].clause {
				end, day = i+2, int(toks[i+1].num)
			}
			year := 0
			if end < s.tokEnd && toks[end].year {
				year = int(toks[end].num)
				end++
			}
			prep := ""
			if start > s.tokStart {
				prep = toks[start-1].norm
				if prep == "the" && start-1 > s.tokStart {
					prep = toks[start-2].norm
				}
				if en, ok := prepAlias[prep]; ok {
					prep = en
				}
			}
			level := 70
			if !now.IsZero() {
				level = levelForDays(daysUntil(now, monthIndex(n), day, year, prep))
			}
			if prep != "" && (prep == "by" || prep == "before" || prep == "until" || prep == "till" || prep == "in" || prep == "on" || prep == "during") {
				start--
			}
			emit(level, "date: "+span(start, end), start, end)
			i = end - 1
			continue
		}
		// Quarters: "by end of Q2", "in Q3".
		if len(n) == 2 && n[0] == 'q' && n[1] >= '1' && n[1] <= '4' && i > s.tokStart {
			level := 65
			if !now.IsZero() {
				level = levelForDays(daysUntil(now, int(n[1]-'0')*3, 0, 0, "by"))
			}
			emit(level, "date: "+span(i-1, i+1), i-1, i+1)
			continue
		}
		// "on the 15th": a day of this or next month.
		if toks[i].ordinal && toks[i].num <= 31 && i > s.tokStart && (toks[i-1].norm == "the" || toks[i-1].norm == "on") &&
			!(i+1 < s.tokEnd && months[toks[i+1].norm]) && !(i+2 < s.tokEnd && toks[i+1].norm == "of" && months[toks[i+2].norm]) {
			emit(85, "date: "+span(i-1, i+1), i-1, i+1)
			continue
		}
		// The same in Spanish, Portuguese and French, where the day is a
		// plain number after its article: "me vence el 30", "a audiência é
		// dia 14", "livraison le 12". Not "el 30 %", not "el 30 de marzo"
		// (read with its month), not a count ("el 12 empleados").
		if dayOfMonth(toks, i, s) {
			emit(85, "date: "+span(i-1, i+1), i-1, i+1)
			continue
		}
		// A bare year: "by 2027".
		if toks[i].year && i > s.tokStart &&
			(toks[i-1].norm == "in" || toks[i-1].norm == "by" || toks[i-1].norm == "before" || toks[i-1].norm == "until" || toks[i-1].norm == "during") {
			level := 40
			if !now.IsZero() {
				level = levelForDays(daysUntil(now, 6, 30, int(toks[i].num), "in"))
			}
			emit(level, "date: "+span(i-1, i+1), i-1, i+1)
		}
	}
	return out
}

// dayArticles announce a day of the month: "el 30", "dia 14", "le 12".
var dayArticles = setOfWords([]string{"el", "dia", "le"})

// dayAfter may follow such a day: the end of a clause, a conjunction, or
// the time of day ("el 30 a las 10", "dia 14 de manhã", "le 12 à 9h").
var dayAfter = setOfWords([]string{"y", "e", "et", "o", "ou", "a", "as", "de", "pela", "por", "en", "em", "au", "avant", "antes", "sin", "sem", "sans", "que", "pero", "mas", "mais"})

func dayOfMonth(toks []token, i int, s *sentence) bool {
	t := toks[i]
	if !t.isNum || t.year || t.num < 1 || t.num > 31 || t.num != float64(int(t.num)) || i == s.tokStart || !dayArticles[toks[i-1].norm] {
		return false
	}
	if i+1 >= s.tokEnd || toks[i+1].clause != t.clause {
		return true
	}
	next := toks[i+1].norm
	if toks[i-1].norm != "dia" && !dayAfter[next] {
		return false
	}
	if next == "de" && i+2 < s.tokEnd && classSet("month")[toks[i+2].norm] {
		return false // "el 30 de marzo" is read with its month
	}
	return true
}

// sinceBefore: the date at toks[i] follows "since" (English, German,
// French), skipping an article or a day number: "since Q1", "seit dem 3.
// März", "depuis janvier". Spanish and Portuguese "desde" also mean "from"
// ("desde enero queremos..."), so they are left out.
func sinceBefore(toks []token, i int, s *sentence) bool {
	for k := i - 1; k >= s.tokStart && k >= i-3; k-- {
		switch toks[k].norm {
		case "since", "seit", "depuis":
			return true
		case "the", "dem", "le", "early", "late", "mid", "end", "of":
			continue
		}
		if toks[k].isNum {
			continue
		}
		return false
	}
	return false
}

// numberAt reads a number at toks[i]: digits, a number word, or a range
// ("2-3", "2 to 3"), whose middle is used.
func numberAt(toks []token, i, hi int) (float64, int, bool) {
	if i >= hi {
		return 0, i, false
	}
	var v float64
	switch {
	case toks[i].isNum && !toks[i].ordinal && toks[i].mult == "":
		v = toks[i].num
	case numberWords[toks[i].norm] > 0:
		v = numberWords[toks[i].norm]
	default:
		return 0, i, false
	}
	j := i + 1
	if j < hi && toks[j].norm == "of" && toks[i].norm == "couple" {
		j++
	}
	if j+1 < hi && toks[j].norm == "to" {
		if w, k, ok := numberAt(toks, j+1, hi); ok && w > v {
			return (v + w) / 2, k, true
		}
	}
	return v, j, true
}

// monthIsDate tells a month name from the same word used otherwise ("we may
// look", "march on"): it needs a day number, a year or a time preposition.
func monthIsDate(toks []token, i int, s *sentence) bool {
	if i > s.tokStart && toks[i-1].isNum && toks[i-1].num <= 31 {
		return true
	}
	if i+1 < s.tokEnd && toks[i+1].isNum && (toks[i+1].num <= 31 || toks[i+1].year) && toks[i+1].clause == toks[i].clause {
		return true
	}
	if i == s.tokStart {
		return false
	}
	switch toks[i-1].norm {
	case "in", "by", "before", "until", "till", "from", "of", "mid", "early", "late", "end", "during", "this", "next", "coming", "on", "since",
		"en", "para", "hasta", "antes", "de", "desde", "finales", "principios", "mediados", "em", "ate", "ao", "fim", "final", "inicio", "meados",
		"fin", "avant", "jusque", "mi", "debut", "depuis", "bis", "im", "vor", "ende", "anfang", "mitte", "seit", "ab", "zum", "tak":
		return true
	case "the":
		n := toks[i].norm
		return n != "may" && n != "march" && n != "mar"
	}
	return false
}

// prepAlias reads the other languages' time prepositions as English
// ones: "hasta marzo" is "by March", "fin mars" is "end of March".
var prepAlias = map[string]string{
	"para": "by", "hasta": "by", "ate": "by", "bis": "by", "jusque": "by", "tak": "by",
	"antes": "before", "avant": "before", "vor": "before", "en": "in", "em": "in", "im": "in", "dans": "in",
	"fin": "end", "final": "end", "finales": "end", "ende": "end", "de": "of", "mediados": "mid", "mitte": "mid",
}

// monthNames number the months of the other languages.
var monthNames = map[string]int{
	"enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
	"septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
	"janeiro": 1, "fevereiro": 2, "marco": 3, "maio": 5, "junho": 6, "julho": 7, "setembro": 9,
	"outubro": 10, "novembro": 11, "dezembro": 12,
	"janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7, "aout": 8,
	"septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
	"januar": 1, "februar": 2, "marz": 3, "juni": 6, "juli": 7, "oktober": 10, "dezember": 12,
}

func monthIndex(name string) int {
	if m, ok := monthNames[name]; ok {
		return m
	}
	switch name[:3] {
	case "jan":
		return 1
	case "feb":
		return 2
	case "mar":
		return 3
	case "apr":
		return 4
	case "may":
		return 5
	case "jun":
		return 6
	case "jul":
		return 7
	case "aug":
		return 8
	case "sep":
		return 9
	case "oct":
		return 10
	case "nov":
		return 11
	}
	return 12
}

// daysUntil is the distance from now to a month (and day) the visitor
// named. "by"/"before"/"until" a month mean its start or end; "in" a month
// means its middle. A month already past this year means next year's.
func daysUntil(now time.Time, month, day, year int, prep string) float64 {
	explicitYear := year != 0
	if !explicitYear {
		year = now.Year()
	}
	d := day
	if d == 0 {
		switch prep {
		case "before":
			d = 1
		case "by", "until", "till", "end", "of":
			d = daysIn(year, month)
		default:
			d = 15
		}
	}
	if d > daysIn(year, month) {
		d = daysIn(year, month)
	}
	target := time.Date(year, time.Month(month), d, 0, 0, 0, 0, now.Location())
	if !explicitYear && target.Before(now.AddDate(0, 0, -15)) {
		target = target.AddDate(1, 0, 0)
	}
	days := target.Sub(now).Hours() / 24
	if days < 0 {
		days = 0
	}
	return days
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// readReturnWhen is the reading of a visitor who will come back once
// something has happened.
const readReturnWhen = "will come back when ready, later"

var (
	// Verbs of coming back or getting in touch again, and Hinglish
	// "then we'll think / see / talk" ("tab sochenge").
	returnVerbs = setOfWords([]string{
		"revisit", "volvere", "volvemos", "vuelvo", "volveremos", "volvera", "volto", "voltamos", "voltarei", "voltaremos",
		"reviens", "reviendrai", "reviendrons", "recontacterai", "recontacterons", "zuruck", "zuruckkommen", "zuruckmelden",
		"melde", "melden", "sochenge", "dekhenge", "batayenge",
	})
	returnPairs = [][2]string{{"come", "back"}, {"get", "back"}, {"reach", "out"}, {"circle", "back"}, {"in", "touch"},
		{"contact", "karenge"}, {"baat", "karenge"}, {"contact", "karunga"}, {"contact", "you"}}
	// Conditions of time: when, once; not "if" ("I'll get back to you
	// if I have questions" defers nothing) and not "after" a dated step.
	returnConditions = setOfWords([]string{"when", "once", "cuando", "quando", "quand", "lorsque", "wenn", "sobald", "jab", "tab"})
)

// returnWhenFindings: the visitor will come back once something has
// happened ("cuando tengamos fecha volvemos", "wenn das mal mehr wird,
// komm ich auf euch zurück", "I'll come back when I actually know more",
// "11th me aa jayegi tab contact karenge"): the purchase waits for it, a
// deferral in every language.
func returnWhenFindings(t *turnText, s *sentence, out []finding) []finding {
	if s.question {
		return out
	}
	toks := t.toks
	ret, when := -1, false
	for i := s.tokStart; i < s.tokEnd; i++ {
		n := toks[i].norm
		when = when || returnConditions[n]
		if returnVerbs[n] && ret < 0 {
			ret = i
		}
		for _, p := range returnPairs {
			if ret < 0 && n == p[0] && i+1 < s.tokEnd && toks[i+1].norm == p[1] {
				ret = i
			}
		}
	}
	if ret < 0 || !when || isNegated(toks, ret, ret+1) {
		return out
	}
	return append(out, finding{f: fTimeline, level: 15, reading: readReturnWhen, turn: t.index,
		order: orderOf(t.index, ret), quote: t.text[s.start:s.end], offScope: t.offScope})
}
