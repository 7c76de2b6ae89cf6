package score

import "strings"

// roleInfo is what a job title says about its holder's buying power.
type roleInfo struct {
	authority int // power to decide on a purchase like this
	economic  int // control of the money (MEDDIC's economic buyer)
	process   int // owns a buying process (procurement)
}

// roles maps the head word of a title to its strength. Owners and the
// C-suite decide; VPs, directors and heads usually own their function's
// budget; managers recommend; individual contributors and students
// research.
var roles = map[string]roleInfo{
	"ceo": {95, 90, 0}, "founder": {95, 90, 0}, "founders": {95, 90, 0}, "cofounder": {95, 90, 0},
	"owner": {95, 90, 0}, "owners": {95, 90, 0}, "proprietor": {95, 90, 0}, "promoter": {90, 90, 0},
	"president": {90, 85, 0}, "chairman": {90, 85, 0}, "chairperson": {90, 85, 0}, "md": {95, 90, 0},
	"partner": {85, 80, 0}, "partners": {85, 80, 0}, "principal": {85, 80, 0}, "cxo": {90, 85, 0},
	"cfo": {90, 95, 0}, "coo": {90, 85, 0}, "cto": {85, 75, 0}, "cmo": {85, 75, 0}, "cio": {85, 75, 0},
	"cro": {85, 80, 0}, "chro": {85, 75, 0}, "chief": {90, 85, 0}, "entrepreneur": {85, 85, 0},
	"businessman": {85, 85, 0}, "solopreneur": {85, 85, 0},
	"vp": {85, 75, 0}, "svp": {85, 80, 0}, "evp": {85, 80, 0}, "avp": {70, 55, 0}, "director": {85, 75, 0},
	"directors": {85, 75, 0}, "head": {85, 75, 0}, "hod": {80, 65, 0}, "gm": {80, 70, 0},
	"manager": {60, 40, 0}, "lead": {55, 35, 0}, "supervisor": {50, 30, 0}, "incharge": {55, 35, 0},
	"procurement": {70, 55, 60}, "purchase": {70, 55, 60}, "purchasing": {70, 55, 60}, "buyer": {65, 50, 55},
	"executive": {35, 25, 0}, "analyst": {30, 20, 0}, "associate": {35, 25, 0}, "assistant": {30, 20, 0},
	"coordinator": {35, 25, 0}, "admin": {35, 25, 0}, "administrator": {40, 30, 0}, "specialist": {35, 25, 0},
	"consultant": {40, 30, 0}, "engineer": {35, 25, 0}, "developer": {35, 25, 0}, "designer": {35, 25, 0},
	"rep": {35, 20, 0}, "representative": {35, 20, 0}, "trainee": {15, 5, 0}, "intern": {10, 5, 0},
	"student": {10, 5, 0}, "independent": {75, 75, 0}, "freelance": {75, 75, 0}, "freelancer": {75, 75, 0},
	"solo": {75, 75, 0},
	// Spanish and Portuguese.
	"dueno": {95, 90, 0}, "duena": {95, 90, 0}, "dono": {95, 90, 0}, "dona": {95, 90, 0},
	"fundador": {95, 90, 0}, "fundadora": {95, 90, 0}, "cofundador": {95, 90, 0}, "cofundadora": {95, 90, 0},
	"propietario": {95, 90, 0}, "propietaria": {95, 90, 0}, "proprietario": {95, 90, 0}, "proprietaria": {95, 90, 0},
	"presidente": {90, 85, 0}, "presidenta": {90, 85, 0}, "socio": {85, 80, 0}, "socia": {85, 80, 0},
	"directora": {85, 75, 0}, "diretor": {85, 75, 0}, "diretora": {85, 75, 0}, "gerente": {70, 55, 0},
	"jefe": {80, 65, 0}, "jefa": {80, 65, 0}, "chefe": {80, 65, 0}, "responsable": {65, 45, 0},
	"responsavel": {65, 45, 0}, "encargado": {55, 35, 0}, "encargada": {55, 35, 0},
	"coordinador": {35, 25, 0}, "coordinadora": {35, 25, 0}, "coordenador": {35, 25, 0}, "coordenadora": {35, 25, 0},
	"analista": {30, 20, 0}, "asistente": {30, 20, 0}, "assistente": {30, 20, 0}, "becario": {10, 5, 0},
	"becaria": {10, 5, 0}, "estagiario": {10, 5, 0}, "estagiaria": {10, 5, 0}, "practicante": {10, 5, 0},
	"pasante": {10, 5, 0}, "estudiante": {10, 5, 0}, "estudante": {10, 5, 0}, "compras": {70, 55, 60},
	"autonomo": {75, 75, 0}, "autonoma": {75, 75, 0}, "ingeniero": {35, 25, 0}, "ingeniera": {35, 25, 0},
	"engenheiro": {35, 25, 0}, "engenheira": {35, 25, 0}, "comprador": {65, 50, 55}, "compradora": {65, 50, 55},
	"gestor": {60, 40, 0}, "gestora": {60, 40, 0}, "consultor": {40, 30, 0}, "consultora": {40, 30, 0},
	// French.
	"directeur": {85, 75, 0}, "directrice": {85, 75, 0}, "fondateur": {95, 90, 0}, "fondatrice": {95, 90, 0},
	"cofondateur": {95, 90, 0}, "cofondatrice": {95, 90, 0}, "gerant": {90, 85, 0}, "gerante": {90, 85, 0},
	"proprietaire": {95, 90, 0}, "patron": {95, 90, 0}, "patronne": {95, 90, 0}, "pdg": {95, 90, 0},
	"dg": {90, 85, 0}, "associe": {85, 80, 0}, "associee": {85, 80, 0}, "chef": {70, 55, 0},
	"charge": {40, 25, 0}, "chargee": {40, 25, 0}, "stagiaire": {10, 5, 0}, "etudiant": {10, 5, 0},
	"etudiante": {10, 5, 0}, "acheteur": {65, 50, 55}, "acheteuse": {65, 50, 55}, "cheffe": {70, 55, 0},
	"ingenieur": {35, 25, 0}, "ingenieure": {35, 25, 0}, "consultante": {40, 30, 0},
	// French acronyms: directeur des systèmes d'information, administratif
	// et financier, des ressources humaines, commercial, général.
	"dsi": {85, 75, 0}, "daf": {90, 95, 0}, "drh": {85, 75, 0}, "dircom": {85, 75, 0}, "dga": {90, 85, 0},
	// German (compounds ending in -leiter, -chef are read by their ending).
	"geschaftsfuhrer": {95, 90, 0}, "geschaftsfuhrerin": {95, 90, 0}, "inhaber": {95, 90, 0},
	"inhaberin": {95, 90, 0}, "grunder": {95, 90, 0}, "grunderin": {95, 90, 0}, "mitgrunder": {95, 90, 0},
	"mitgrunderin": {95, 90, 0}, "vorstand": {90, 85, 0}, "prokurist": {80, 70, 0}, "prokuristin": {80, 70, 0},
	"leiter": {85, 75, 0}, "leiterin": {85, 75, 0}, "chefin": {80, 65, 0}, "einkaufer": {65, 50, 55},
	"einkauferin": {65, 50, 55}, "einkauf": {70, 55, 60}, "mitarbeiter": {35, 25, 0}, "mitarbeiterin": {35, 25, 0},
	"referent": {35, 25, 0}, "referentin": {35, 25, 0}, "assistentin": {30, 20, 0}, "assistent": {30, 20, 0},
	"praktikant": {10, 5, 0}, "praktikantin": {10, 5, 0}, "werkstudent": {10, 5, 0}, "werkstudentin": {10, 5, 0},
	"studentin": {10, 5, 0}, "ingenieurin": {35, 25, 0}, "selbststandig": {75, 75, 0}, "selbstandig": {75, 75, 0},
	// Hinglish.
	"malik": {95, 90, 0}, "maalik": {95, 90, 0},
}

// lookupRole finds a title by its word, or a German compound by its head
// ("Vertriebsleiterin" is a head of sales, "Marketingchef" a head).
func lookupRole(w string) (roleInfo, bool) {
	if info, ok := roles[w]; ok {
		return info, true
	}
	for _, x := range roleSuffixes {
		if len(w) > len(x.suf)+3 && strings.HasSuffix(w, x.suf) {
			return x.info, true
		}
	}
	return roleInfo{}, false
}

var roleSuffixes = []struct {
	suf  string
	info roleInfo
}{
	{"leiterin", roleInfo{85, 75, 0}}, {"leiter", roleInfo{85, 75, 0}}, {"chefin", roleInfo{85, 75, 0}},
	{"chef", roleInfo{85, 75, 0}}, {"fuhrerin", roleInfo{95, 90, 0}}, {"fuhrer", roleInfo{95, 90, 0}},
	{"inhaberin", roleInfo{95, 90, 0}}, {"inhaber", roleInfo{95, 90, 0}},
}

// roleWords are in the vocabulary, so the typo corrector leaves them alone.
var roleWords = keys(roles)

// stopScan ends the search for a title after "I am": "I'm looking for a
// manager" is not a manager.
var stopScan = []string{
	"looking", "searching", "planning", "trying", "going", "building", "writing", "doing", "working",
	"calling", "asking", "interested", "curious", "based", "from", "with", "for", "to", "at", "in", "on",
	"and", "but", "just", "also", "really", "very", "so", "because", "here", "there", "sure", "happy",
	"glad", "thinking", "wondering", "reaching", "checking", "exploring", "hoping", "considering",
	"new", "sorry", "afraid", "fine", "ok", "okay", "good", "not", "currently", "still", "back", "hiring",
	"contact", "talking", "speaking", "leaving", "getting", "having", "waiting", "like",
	"de", "con", "para", "en", "y", "buscando", "interesado", "interesada", "com", "em", "procurando",
	"interessado", "interessada", "avec", "pour", "dans", "et", "recherche", "mit", "fur", "und", "aus",
	"auf", "bei", "von", "nicht", "pas", "no", "nao",
}

var stopScanSet = setOfWords(stopScan)

// roleFindings reads the titles visitors give themselves: "I'm the Head of
// Support", "I'm one of the two partners", "This is Priya, founder of X",
// "main owner hoon", "CEO here". Titles of other people ("our CEO") are
// left to the dependence rules.
func roleFindings(t *turnText, s *sentence, out []finding) []finding {
	toks := t.toks
	for i := s.tokStart; i < s.tokEnd; i++ {
		n := toks[i].norm
		start := -1
		crossClause := false
		hindi := false
		switch {
		case n == "i" && i+1 < s.tokEnd && toks[i+1].norm == "am":
			start = i + 2
		case (n == "soy" || n == "sou") && i+1 < s.tokEnd:
			start, crossClause = i+1, toks[i+1].upper
		case (n == "je" && i+1 < s.tokEnd && toks[i+1].norm == "suis") || (n == "ich" && i+1 < s.tokEnd && toks[i+1].norm == "bin"):
			start = i + 2
			crossClause = start < s.tokEnd && toks[start].upper && n == "je"
		case (n == "como" || n == "als" || n == "enquanto") && i+1 < s.tokEnd:
			start = i + 1
		case n == "en" && i+2 < s.tokEnd && toks[i+1].norm == "tant" && toks[i+2].norm == "que":
			start = i + 3
		case n == "i" && i+1 < s.tokEnd && (toks[i+1].norm == "head" || toks[i+1].norm == "manage" || toks[i+1].norm == "lead" || toks[i+1].norm == "handle"):
			level := map[string]int{"head": 85, "manage": 60, "lead": 55, "handle": 40}[toks[i+1].norm]
			out = appendRole(out, t, s, i, i+2, roleInfo{level, level - 20, 0}, false)
			i++
			continue
		case n == "as" && i+1 < s.tokEnd && (toks[i+1].norm == "the" || toks[i+1].norm == "a" || toks[i+1].norm == "an"):
			start = i + 2
		case n == "this" && i+2 < s.tokEnd && toks[i+1].norm == "is" && toks[i+2].upper:
			start, crossClause = i+3, true
		case (n == "main" || n == "mai") && (i == s.tokStart || toks[i-1].clause != toks[i].clause):
			// "main owner hoon", "namaste, main clinic ka owner hoon": the
			// first word of a clause ("main" inside one is "in").
			start, hindi = i+1, true
		case (n == "role" || n == "title" || n == "designation") && i > s.tokStart && toks[i-1].norm == "my" && i+1 < s.tokEnd && toks[i+1].norm == "is":
			start = i + 2
		case n == "work" && i > s.tokStart && toks[i-1].norm == "i" && i+1 < s.tokEnd && toks[i+1].norm == "as":
			start = i + 2
		}
		if i+1 < s.tokEnd && i <= s.tokStart+1 && (toks[i+1].norm == "here" || toks[i+1].norm == "aqui" || toks[i+1].norm == "ici" || toks[i+1].norm == "hier") {
			if info, ok := roles[n]; ok {
				out = appendRole(out, t, s, i, i+1, info, false)
				continue
			}
		}
		if start < 0 {
			continue
		}
		negated := false
		for k := start; k < s.tokEnd && k < start+6; k++ {
			w := toks[k].norm
			if !crossClause && toks[k].clause != toks[start-1].clause {
				break
			}
			if w == "not" {
				negated = true
				continue
			}
			info, ok := lookupRole(w)
			if ok {
				if hindi && !(k+1 < s.tokEnd && isHindiCopula(toks[k+1].norm)) {
					break
				}
				info = refineRole(toks, k, info)
				if (w == "chef" || w == "cheffe") && k+2 < s.tokEnd && toks[k+1].norm == "de" && toks[k+2].norm == "projet" {
					info = roleInfo{55, 35, 0} // a project manager
				}
				end := roleEnd(toks, k, s)
				first := start
				for first < k && (articles[toks[first].norm] || toks[first].norm == "not" || (hindi && (toks[first].norm == "hi" || toks[first].norm == "bhi"))) {
					first++
				}
				out = appendRole(out, t, s, first, end, info, negated)
				i = k
				break
			}
			if stopScanSet[w] {
				break
			}
		}
	}
	return out
}

// roleEnd extends a title over its "of" phrase ("Head of Customer
// Success"), but not over an article ("CEO of a 200-person company").
func roleEnd(toks []token, k int, s *sentence) int {
	end := k + 1
	if end < s.tokEnd && titleNouns[toks[end].norm] {
		end++ // "procurement officer", "purchase manager"
	}
	if end+1 >= s.tokEnd || !ofWords[toks[end].norm] {
		return end
	}
	j := end + 1
	for j < s.tokEnd && j < end+4 && toks[j].clause == toks[k].clause && !toks[j].isNum && !stopScanSet[toks[j].norm] &&
		!articles[toks[j].norm] && toks[j].norm != "our" && toks[j].norm != "my" {
		j++
	}
	if j == end+1 {
		return end
	}
	return j
}

// ofWords join a title to its department: "Head of Sales", "directora de
// ventas", "responsable du service client".
var ofWords = setOfWords([]string{"of", "de", "del", "do", "da", "du", "des"})

// articles may open a title: "the CEO", "la directora", "der Inhaber".
var articles = setOfWords([]string{"the", "a", "an", "el", "la", "un", "una", "o", "um", "uma", "le", "une", "der", "die", "ein", "eine"})

var titleNouns = setOfWords([]string{"officer", "manager", "head", "lead", "executive", "director", "specialist", "coordinator", "analyst", "engineer", "owner", "partner"})

func isHindiCopula(w string) bool {
	return w == "hoon" || w == "hu" || w == "hun" || w == "h" || w == "hai" || w == "hoo"
}

// refineRole reads two-word titles from the word before the head word.
func refineRole(toks []token, k int, info roleInfo) roleInfo {
	if k == 0 {
		return info
	}
	switch toks[k-1].norm + " " + toks[k].norm {
	case "managing director":
		return roles["md"]
	case "general manager":
		return roles["gm"]
	case "vice president":
		return roles["vp"]
	case "business owner":
		return roles["owner"]
	case "account manager", "project manager", "product manager", "community manager":
		return roleInfo{55, 35, 0}
	}
	return info
}

func appendRole(out []finding, t *turnText, s *sentence, start, end int, info roleInfo, negated bool) []finding {
	text := t.text[t.toks[start].start:t.toks[end-1].end]
	reading := "role: " + text
	base := finding{turn: t.index, order: orderOf(t.index, start), quote: quoteOf(t, s, start, end), offScope: t.offScope}
	add := func(f facet, level int) {
		if level <= 0 {
			return
		}
		x := base
		x.f, x.level, x.reading = f, level, reading
		if negated {
			x.level = min(level, 25)
			x.reading = "not: " + text
		}
		out = append(out, x)
	}
	add(fAuthority, info.authority)
	add(fEconomic, info.economic)
	if !negated {
		add(fProcess, info.process)
	}
	return out
}
