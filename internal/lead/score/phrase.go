package score

import (
	"fmt"
	"strings"
)

// The lexicon is written as phrase patterns over normalised tokens rather
// than regular expressions: a pattern is looked up by its first word, so a
// transcript costs one map lookup per token instead of one regexp scan per
// rule, and the tables stay readable for whoever tunes them.
//
// Pattern syntax, elements separated by spaces:
//
//	word        the token itself
//	a|b|c       any of the alternatives
//	integrat*   a token starting with "integrat" (at least three letters)
//	#n          a number token ("50", "1.5cr", "15th")
//	@name       any word of a named class (see classes)
//	_           any single token
//	..          zero to three tokens of any kind
//	x?          the element is optional
//	{a b|c|}    brace group: alternatives of several words (or none), expanded
//	            into separate phrases when compiled
//
// A match never crosses a sentence boundary.

// elem is one position of a phrase.
type elem struct {
	words    []string
	prefixes []string
	num      bool
	any      bool
	gap      int
	opt      bool
	// ids are the words' vocabulary ids, and set the same as a bitset for
	// long alternatives (classes): filled in when the lexicon is built, so
	// that matching compares integers, not strings.
	ids []int32
	set []uint64
}

func (e *elem) matches(t *token) bool {
	if e.any {
		return true
	}
	if e.num && t.isNum {
		return true
	}
	if t.id >= 0 {
		if e.set != nil {
			if e.set[t.id>>6]&(1<<(uint(t.id)&63)) != 0 {
				return true
			}
		} else {
			for _, id := range e.ids {
				if id == t.id {
					return true
				}
			}
		}
	}
	for _, p := range e.prefixes {
		if strings.HasPrefix(t.norm, p) {
			return true
		}
	}
	return false
}

// classes are word sets shared by many patterns.
var classes = map[string][]string{
	"det": {"a", "an", "the", "our", "my", "this", "that", "some", "any", "your",
		"el", "la", "los", "las", "un", "una", "mi", "nuestro", "nuestra", "su", "este", "esta",
		"o", "os", "um", "uma", "meu", "minha", "nosso", "nossa", "seu", "sua",
		"le", "les", "une", "mon", "ma", "notre", "nos", "votre", "ce", "cette",
		"der", "die", "das", "den", "dem", "ein", "eine", "einen", "unser", "unsere", "mein", "meine", "ihr", "ihre",
		"ek", "mera", "meri", "hamara", "hamari"},
	"we": {"we", "i", "us", "me"},
	"be": {"is", "are", "am", "was", "were", "be", "been", "es", "son", "esta", "estan", "sao", "est", "sont", "ist", "sind", "hai", "hain"},
	"month": {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
		"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "setiembre", "octubre", "noviembre", "diciembre",
		"janeiro", "fevereiro", "marco", "maio", "junho", "julho", "setembro", "outubro", "novembro", "dezembro",
		"janvier", "fevrier", "mars", "avril", "mai", "juin", "juillet", "aout", "septembre", "octobre", "novembre", "decembre",
		"januar", "februar", "marz", "juni", "juli", "oktober", "dezember"},
	"weekday": {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend", "mon", "tue", "wed", "thu", "fri", "sat", "sun",
		"lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "domingo", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
		"montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag", "wochenende",
		"terca", "quarta", "quinta", "sexta", "finde"},
	"superior": {"boss", "manager", "vp", "ceo", "cfo", "chro", "cdo", "cio", "cxo", "founder", "founders", "cofounder", "director", "owner", "management", "board", "principal", "head", "md", "client", "clients", "registrar", "gm", "superior", "supervisor", "committee", "hod", "dean", "procurement", "finance", "accounts", "legal", "cto", "coo", "cmo", "chairman", "president", "investors", "partner", "partners",
		"jefe", "jefa", "socio", "socia", "socios", "director", "directora", "gerente", "gerencia", "direccion", "dueno", "duena", "junta", "chefe", "diretor", "diretora", "diretoria", "dono", "dona",
		"patron", "patronne", "directeur", "directrice", "direction", "associe", "associes", "chef", "chefin", "vorgesetzten", "vorgesetzter", "geschaftsfuhrer", "geschaftsfuhrung", "geschaftsleitung", "inhaber", "vorstand", "malik",
		"dsi", "daf", "drh", "dg", "pdg", "gf"},
	"boss": {"papa", "malik", "sir", "boss", "manager", "vp", "ceo", "cfo", "founder", "founders", "cofounder", "director", "owner", "partner", "partners", "management", "board", "principal", "head", "md", "team", "husband", "wife", "parents", "father", "mother", "dad", "family", "client", "clients", "registrar", "gm", "superior", "senior", "seniors", "supervisor", "committee", "hod", "dean", "procurement", "finance", "accounts", "legal", "it", "cto", "coo", "cmo", "chairman", "president", "investors",
		"jefe", "jefa", "socio", "socia", "socios", "directora", "gerente", "gerencia", "direccion", "dueno", "duena", "junta", "chefe", "diretor", "diretora", "diretoria", "dono", "dona",
		"patron", "patronne", "directeur", "directrice", "direction", "associe", "associes", "chef", "chefin", "vorgesetzten", "vorgesetzter", "geschaftsfuhrer", "geschaftsfuhrung", "geschaftsleitung", "inhaber", "vorstand", "equipo", "equipe", "team",
		"dsi", "daf", "drh", "dg", "pdg", "gf"},
	"volume": {"tickets", "calls", "enquiries", "inquiries", "leads", "orders", "chats", "conversations", "visitors", "customers", "shipments", "queries", "messages", "users", "students", "patients", "emails", "requests", "bookings", "applications", "sessions", "complaints", "questions", "deliveries", "transactions", "signups", "trials", "demos", "appointments", "claims", "policies", "units", "sales", "deals", "clients",
		"consultas", "mensajes", "conversaciones", "llamadas", "pedidos", "correos", "reservas", "citas", "visitas", "solicitudes", "preguntas", "clientes", "ventas",
		"mensagens", "conversas", "atendimentos", "ligacoes", "chamados", "agendamentos", "perguntas", "pedidos",
		"demandes", "appels", "commandes", "reservations", "requetes", "visiteurs", "conversations",
		"anfragen", "nachrichten", "gesprache", "bestellungen", "anrufe", "buchungen", "termine", "fragen", "kunden", "mails",
		// Parts and pieces made or shipped: "500 Stk/Jahr", "500 pcs", "2.000 peças".
		"pieces", "pcs", "parts", "piezas", "pecas", "stk", "stuck", "teile"},
	"per":      {"a", "per", "each", "every"},
	"period":   {"day", "week", "month", "year", "hour", "quarter", "daily", "weekly", "monthly", "yearly", "annually", "annual"},
	"money":    {"inr", "usd", "eur", "gbp", "rs", "rupees", "rupee", "dollars", "dollar", "bucks", "lakh", "lakhs", "lac", "lacs", "crore", "crores", "cr", "k"},
	"system":   {"salesforce", "hubspot", "zoho", "sap", "zendesk", "freshdesk", "freshworks", "shopify", "woocommerce", "magento", "whatsapp", "instagram", "facebook", "messenger", "slack", "leadsquared", "pipedrive", "intercom", "crm", "erp", "lis", "los", "tms", "lms", "his", "ehr", "emr", "api", "apis", "webhook", "webhooks", "tally", "oracle", "dynamics", "wordpress", "wix", "telegram", "jira", "servicenow", "calendly", "stripe", "razorpay", "netsuite", "sheets", "excel"},
	"decide":   {"decide", "decides", "decided", "decision", "decisions", "approve", "approves", "approval", "finalise", "finalize", "finalises", "finalizes", "sign", "signs", "call", "say"},
	"pronoun3": {"he", "she", "they", "them", "him", "her"},
}

// phrase is a compiled pattern.
type phrase []elem

// compile parses a pattern into phrases: brace groups and a leading optional
// element are expanded so that every phrase has a required first element to
// index on.
func compile(pattern string) []phrase {
	var out []phrase
	for _, p := range expand(pattern) {
		out = append(out, compileOne(p, pattern)...)
	}
	return out
}

// expand rewrites the first brace group of a pattern into one pattern per
// alternative, recursively.
func expand(pattern string) []string {
	open := strings.IndexByte(pattern, '{')
	if open < 0 {
		return []string{pattern}
	}
	end := strings.IndexByte(pattern[open:], '}')
	if end < 0 {
		panic(fmt.Sprintf("score: unclosed brace in %q", pattern))
	}
	end += open
	var out []string
	for _, alt := range strings.Split(pattern[open+1:end], "|") {
		out = append(out, expand(pattern[:open]+" "+alt+" "+pattern[end+1:])...)
	}
	return out
}

func compileOne(expanded, pattern string) []phrase {
	fields := strings.Fields(expanded)
	if len(fields) == 0 {
		panic("score: empty pattern")
	}
	p := make(phrase, 0, len(fields))
	for _, f := range fields {
		var e elem
		if f == ".." {
			e.gap = 3
			p = append(p, e)
			continue
		}
		if strings.HasSuffix(f, "?") && len(f) > 1 {
			e.opt = true
			f = strings.TrimSuffix(f, "?")
		}
		for _, alt := range strings.Split(f, "|") {
			switch {
			case alt == "_":
				e.any = true
			case alt == "#n":
				e.num = true
			case strings.HasPrefix(alt, "@"):
				words, ok := classes[alt[1:]]
				if !ok {
					panic(fmt.Sprintf("score: unknown class %s in %q", alt, pattern))
				}
				e.words = append(e.words, words...)
			case strings.HasSuffix(alt, "*"):
				pre := strings.TrimSuffix(alt, "*")
				if len(pre) < 3 {
					panic(fmt.Sprintf("score: prefix %q too short in %q", alt, pattern))
				}
				e.prefixes = append(e.prefixes, pre)
			default:
				e.words = append(e.words, alt)
			}
		}
		p = append(p, e)
	}
	if p[0].gap > 0 || p[0].any || p[len(p)-1].gap > 0 {
		panic(fmt.Sprintf("score: pattern %q must start and end with a word", pattern))
	}
	if p[0].opt {
		rest := append(phrase(nil), p[1:]...)
		first := append(phrase(nil), p...)
		first[0].opt = false
		return append([]phrase{first}, compileTail(rest, pattern)...)
	}
	return []phrase{p}
}

func compileTail(p phrase, pattern string) []phrase {
	if len(p) == 0 || p[0].gap > 0 || p[0].any {
		panic(fmt.Sprintf("score: pattern %q needs a required word after its optional start", pattern))
	}
	if p[0].opt {
		first := append(phrase(nil), p...)
		first[0].opt = false
		return append([]phrase{first}, compileTail(p[1:], pattern)...)
	}
	return []phrase{p}
}

// matchAt returns the end (exclusive) of the longest-first match of p
// starting at toks[i], staying below lim, or -1.
func (p phrase) matchAt(toks []token, i, lim int) int {
	return matchFrom(p, toks, i, lim)
}

func matchFrom(p phrase, toks []token, i, lim int) int {
	if len(p) == 0 {
		return i
	}
	e := &p[0]
	if e.gap > 0 {
		for k := 0; k <= e.gap && i+k < lim; k++ {
			if r := matchFrom(p[1:], toks, i+k, lim); r >= 0 {
				return r
			}
		}
		return -1
	}
	if i < lim && e.matches(&toks[i]) {
		if r := matchFrom(p[1:], toks, i+1, lim); r >= 0 {
			return r
		}
	}
	if e.opt {
		return matchFrom(p[1:], toks, i, lim)
	}
	return -1
}

// index finds the phrases that can start at a token.
type index struct {
	byID     [][]entry          // by the vocabulary id of the first word
	byPrefix map[string][]entry // keyed by the first three letters
	byNum    []entry
	// prefixed marks the three-letter starts (a-z) that have an entry in
	// byPrefix, so most tokens skip the map.
	prefixed [26 * 26 * 26]bool
}

// prefixKey is the slot of a word's first three letters, -1 if they are
// not all a-z.
func prefixKey(w string) int {
	if len(w) < 3 {
		return -1
	}
	k := 0
	for i := 0; i < 3; i++ {
		c := w[i]
		if c < 'a' || c > 'z' {
			return -1
		}
		k = k*26 + int(c-'a')
	}
	return k
}

type entry struct {
	rule   int // index into the lexicon's rules
	phrase phrase
	// second is the phrase's second element when that is a required word
	// (not optional, a gap, a number or a prefix): a cheap test on the next
	// token before trying the whole phrase.
	second *elem
}

func (ix *index) add(ruleID int, ps []phrase) {
	for _, p := range ps {
		e := entry{rule: ruleID, phrase: p}
		if len(p) > 1 {
			if s := &p[1]; !s.opt && s.gap == 0 && !s.any && !s.num && len(s.prefixes) == 0 {
				e.second = s
			}
		}
		first := &p[0]
		for _, id := range first.ids {
			ix.byID[id] = append(ix.byID[id], e)
		}
		for _, pre := range first.prefixes {
			ix.byPrefix[pre[:3]] = append(ix.byPrefix[pre[:3]], e)
			if k := prefixKey(pre); k >= 0 {
				ix.prefixed[k] = true
			}
		}
		if first.num {
			ix.byNum = append(ix.byNum, e)
		}
	}
}

// candidates calls fn for every phrase whose first element can match t
// and, when the phrase's second word is fixed, whose second can match next
// (nil at the end of the sentence).
func (ix *index) candidates(t, next *token, fn func(entry)) {
	if t.id >= 0 {
		for _, e := range ix.byID[t.id] {
			if e.second != nil && (next == nil || !e.second.matches(next)) {
				continue
			}
			fn(e)
		}
	}
	if k := prefixKey(t.norm); k >= 0 && ix.prefixed[k] {
		for _, e := range ix.byPrefix[t.norm[:3]] {
			if e.phrase[0].matches(t) {
				fn(e)
			}
		}
	}
	if t.isNum {
		for _, e := range ix.byNum {
			fn(e)
		}
	}
}
