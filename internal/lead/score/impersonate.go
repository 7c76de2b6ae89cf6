package score

import (
	"regexp"
	"strings"
)

// A visitor turn written as a message of the system rather than of a
// person is an instruction to the bot or the scorer, in every language,
// whatever words the lexicon knows: a role marker of its own ("system:",
// "[SYSTEM]", "</system>", `{"role":"system"`, "SISTEMA:", "admin mode on",
// "SYSTEM OVERRIDE") or a value assigned to a field in a programmer's
// notation ("tier=sql", "lead_score = 100", "budget=approved"). People
// asking about a product write neither: in the labelled sets every visitor
// turn with one of them (43 conversations of every writer and language) is
// labelled unqualified.
var (
	roleMarker = regexp.MustCompile(`(?i)(^|[\s\[\]<>/{"'#*(])(system|sistema|syst[eè]me|admin|developer|assistant)\s*(\]|>|"?\s*:|\s+override\b|\s+(mode|modus|modo)\b)|"role"\s*:\s*"system"|\b(mode|modo|modus)\s+(admin|administrador|administrateur|developpeur|développeur|desarrollador|desenvolvedor)\b`)
	fieldValue = regexp.MustCompile(`(^|[\s\[;,.{(])[\p{L}_]+\s*=\s*[\p{L}\p{N}₹€$"']`)
)

// impersonationFindings adds an injection finding for every sentence of
// the turn that holds a system role marker or a field assignment, quoting
// that sentence.
func impersonationFindings(t *turnText, out []finding) []finding {
	var seen map[int]bool
	for _, re := range []*regexp.Regexp{roleMarker, fieldValue} {
		if !mayMatch(re, t.text) {
			continue
		}
		for _, m := range re.FindAllStringIndex(t.text, -1) {
			si := sentenceAt(t, m[1]-1)
			if si < 0 || seen[si] {
				continue
			}
			if seen == nil {
				seen = map[int]bool{}
			}
			seen[si] = true
			s := &t.sents[si]
			out = append(out, finding{f: fInjection, level: 100, reading: "a message written as the system's or an assignment to a scoring field",
				turn: t.index, order: orderOf(t.index, s.tokStart), quote: t.text[s.start:s.end], offScope: t.offScope})
		}
	}
	return out
}

// roleMarkerWords are the words one of which every match of roleMarker holds
// (case aside): the system-like roles, "role" and mode/modo/modus.
var roleMarkerWords = []string{"syst", "sist", "admin", "developer", "assistant", "role", "mod"}

// mayMatch is false only when re cannot match text, which is most turns:
// fieldValue needs an '=', roleMarker one of roleMarkerWords. It spares running
// the expressions, the costliest part of scoring a short conversation.
// A long s ('ſ') folds to 's' under (?i) but not under strings.ToLower, so
// a text with one is always handed to the expression.
func mayMatch(re *regexp.Regexp, text string) bool {
	switch re {
	case fieldValue:
		return strings.IndexByte(text, '=') >= 0
	case roleMarker:
		if strings.ContainsRune(text, 'ſ') {
			return true
		}
		lower := strings.ToLower(text)
		for _, w := range roleMarkerWords {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	return true
}

// sentenceAt is the index of the sentence holding byte pos of the turn,
// or of the first sentence after it when pos falls between sentences;
// -1 when there is none.
func sentenceAt(t *turnText, pos int) int {
	for i, s := range t.sents {
		if pos < s.end {
			return i
		}
	}
	return -1
}
