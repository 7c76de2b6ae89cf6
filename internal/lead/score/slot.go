package score

import "strings"

// A bot that offers appointment slots ("Wednesday 8:30 or Friday 1 pm,
// which suits you?", "Quinta às 10h funciona?") and a visitor who answers
// with one of them ("mercredi 8h30 svp", "10h perfeito") have made a
// booking, whatever words the visitor used: the slot they named is the
// bot's own. The evidence is the visitor's answer.

// weekdays fold the day names of the supported languages to one key.
var weekdays = func() map[string]string {
	days := [][]string{
		{"monday", "lunes", "segunda", "lundi", "montag", "somvar", "mon"},
		{"tuesday", "martes", "terca", "mardi", "dienstag", "mangalvar", "tue", "tues"},
		{"wednesday", "miercoles", "quarta", "mercredi", "mittwoch", "budhvar", "wed"},
		{"thursday", "jueves", "quinta", "jeudi", "donnerstag", "guruvar", "thu", "thurs"},
		{"friday", "viernes", "sexta", "vendredi", "freitag", "shukravar", "fri"},
		{"saturday", "sabado", "samedi", "samstag", "shanivar", "sat"},
		{"sunday", "domingo", "dimanche", "sonntag", "ravivar", "sun"},
	}
	m := map[string]string{}
	for _, d := range days {
		for _, w := range d {
			m[w] = d[0]
		}
	}
	return m
}()

// hourUnits follow an hour written apart: "8 h 30", "9 am", "10 Uhr", "5 baje".
var hourUnits = setOfWords([]string{"h", "uhr", "am", "pm", "hrs", "baje", "heures", "horas"})

// slotKeys are the days and hours a stretch of tokens names: "wednesday",
// "h8" (from "8h30", "8:30", "8 h 30", "8am").
func slotKeys(toks []token, lo, hi int) map[string]bool {
	keys := map[string]bool{}
	for i := lo; i < hi; i++ {
		n := toks[i].norm
		if d, ok := weekdays[n]; ok {
			keys[d] = true
			continue
		}
		if h, ok := compactHour(n); ok {
			keys["h"+h] = true
			continue
		}
		if toks[i].isNum && toks[i].num >= 1 && toks[i].num <= 23 && i+1 < hi {
			next := toks[i+1]
			minutes := next.isNum && len(next.norm) == 2 && next.num < 60
			if hourUnits[next.norm] || minutes {
				keys["h"+toks[i].norm] = true
			}
		}
	}
	return keys
}

// compactHour reads "8h30", "10h", "9am", "16h00", "5pm" as its hour.
func compactHour(n string) (string, bool) {
	k := 0
	for k < len(n) && k < 2 && n[k] >= '0' && n[k] <= '9' {
		k++
	}
	if k == 0 || k == len(n) {
		return "", false
	}
	rest := n[k:]
	for _, u := range []string{"h", "am", "pm", "uhr"} {
		if strings.HasPrefix(rest, u) {
			tail := rest[len(u):]
			if len(tail) == 0 || (len(tail) == 2 && tail[0] >= '0' && tail[0] <= '5' && tail[1] >= '0' && tail[1] <= '9') {
				return strings.TrimLeft(n[:k], "0"), true
			}
		}
	}
	return "", false
}

// slotDecliners make an answer something other than taking the slot.
var slotDecliners = setOfWords([]string{"no", "not", "non", "nein", "nao", "nahi", "pas", "nicht", "neither", "ninguno", "aucun", "keiner", "cannot", "cant"})

// slotAlternatives join the slots a bot offers: "9:00 or 17:30",
// "morgen 9 Uhr oder übermorgen", "às 9h ou às 10h30", "kal ya parso".
var slotAlternatives = setOfWords([]string{"or", "oder", "o", "ou", "ya", "bzw"})

// slotAnd joins slots the bot says are free ("Este sábado tenemos libre a
// las 10:00 y a las 12:30", "noch frei: Montag 9 Uhr und Dienstag 14 Uhr"),
// and freeSlotWords say so; opening hours ("Tuesday and Thursday at 7
// pm") name nothing free.
var (
	slotAnd       = setOfWords([]string{"and", "y", "e", "et", "und", "aur"})
	freeSlotWords = setOfWords([]string{"tenemos", "quedan", "libre", "libres", "disponible", "disponibles", "available", "free", "open",
		"temos", "livre", "livres", "vaga", "vagas", "dispo", "disponibilite", "disponibilites", "frei", "verfugbar", "hatten", "khali"})
)

// offeredSlots are the slots a bot turn offers: named days or hours in a
// turn that asks the visitor to choose ("which suits you?", "funciona?"),
// or that names two or more of them as alternatives ("Wir hätten morgen
// 9:00 Uhr oder übermorgen 17:30 Uhr"): an offer, though not a question.
// Opening hours ("Tuesday and Thursday at 7 pm") offer nothing.
func offeredSlots(text, lang string) map[string]bool {
	toks, sents := tokenizeLang(text, lex, lang)
	return offeredSlotsToks(toks, sents)
}

// offeredSlotsToks is offeredSlots given the turn's tokens.
func offeredSlotsToks(toks []token, sents []sentence) map[string]bool {
	asks := false
	for _, s := range sents {
		asks = asks || s.question
	}
	keys := slotKeys(toks, 0, len(toks))
	if len(keys) == 0 {
		return nil
	}
	if !asks {
		alternatives := false
		for _, s := range sents {
			free := false
			for i := s.tokStart; i < s.tokEnd; i++ {
				free = free || freeSlotWords[toks[i].norm]
			}
			for i := s.tokStart; i < s.tokEnd; i++ {
				alt := slotAlternatives[toks[i].norm] || (free && slotAnd[toks[i].norm])
				if alt && len(slotKeys(toks, s.tokStart, i)) > 0 && len(slotKeys(toks, i+1, s.tokEnd)) > 0 {
					alternatives = true
				}
			}
		}
		if !alternatives {
			return nil
		}
	}
	return keys
}

// slotFindings: the visitor's first reply to a bot turn that offered slots
// names one of them in a short sentence, without a no: a booking.
func slotFindings(t *turnText, offered map[string]bool, out []finding) []finding {
	if len(offered) == 0 {
		return out
	}
	for si := range t.sents {
		s := &t.sents[si]
		// The slot named in a short statement of its own ("Montag 9 uhr.
		// Ich bring die Ordner gleich mit."): what else the turn says
		// does not unmake the choice.
		if s.question || s.tokEnd-s.tokStart > 10 {
			continue
		}
		declined := false
		for i := s.tokStart; i < s.tokEnd; i++ {
			declined = declined || slotDecliners[t.toks[i].norm]
		}
		if declined {
			continue
		}
		for k := range slotKeys(t.toks, s.tokStart, s.tokEnd) {
			if !offered[k] {
				continue
			}
			q := quoteOf(t, s, s.tokStart, s.tokEnd)
			o := orderOf(t.index, s.tokStart)
			return append(out,
				finding{f: fIntent, level: 85, reading: "takes a slot the bot offered", turn: t.index, order: o, quote: q, offScope: t.offScope},
				finding{f: fTimeline, level: 90, reading: "takes a slot the bot offered", turn: t.index, order: o, quote: q, offScope: t.offScope})
		}
	}
	// One slot offered ("Thursday 11 AM theek hai?", "Freitag um 9:30 ist
	// noch frei. Soll ich reservieren?", "¿Te va bien el martes a las
	// 10?") and a plain yes as the answer's first word ("haan thik hai",
	// "ja bitte", "sí, perfecto"): the visitor took it. With alternatives
	// on offer a bare yes chooses none.
	if len(t.sents) == 0 || !t.oneSlot {
		return out
	}
	if s := &t.sents[0]; s.tokStart < s.tokEnd && !s.question && s.tokEnd-s.tokStart <= 10 && affirmWords[t.toks[s.tokStart].norm] {
		for i := s.tokStart; i < s.tokEnd; i++ {
			if slotDecliners[t.toks[i].norm] {
				return out
			}
		}
		q := quoteOf(t, s, s.tokStart, s.tokEnd)
		o := orderOf(t.index, s.tokStart)
		return append(out,
			finding{f: fIntent, level: 85, reading: "takes the slot the bot offered", turn: t.index, order: o, quote: q, offScope: t.offScope},
			finding{f: fTimeline, level: 90, reading: "takes the slot the bot offered", turn: t.index, order: o, quote: q, offScope: t.offScope})
	}
	return out
}

// singleSlotOffer: the slots a bot turn offered (offeredSlots) are one:
// a day, an hour, or a day and an hour ("Timing 11 AM theek hai?",
// "Freitag um 9:30 Uhr ist noch frei. Soll ich reservieren?", "Mañana a
// las 8:00 podemos recibirlo. ¿Te apunto?"). An hour of 22 or more is a
// duration or a service round the clock ("une offre sous 48h",
// "téléassistance 24h/24"), not a slot: such a turn offers none.
func singleSlotOffer(offered map[string]bool) bool {
	days, hours := 0, 0
	for k := range offered {
		if _, day := weekdays[k]; day {
			days++
			continue
		}
		if n := k[1:]; n == "" || len(n) >= 2 && n >= "22" {
			return false
		}
		hours++
	}
	return days <= 1 && hours <= 1 && days+hours > 0
}
