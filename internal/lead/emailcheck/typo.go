package emailcheck

import (
	"strings"

	"golang.org/x/net/publicsuffix"
)

// popularDomains are the mailbox providers most leads use, most popular
// first so that ties go to the likelier one. A domain on this list is never
// "corrected", which is why near-neighbours that are real providers in their
// own right (mail.com, email.com, ymail.com, gmx.*) are on it.
var popularDomains = []string{
	"gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "icloud.com",
	"aol.com", "live.com", "msn.com", "me.com", "mac.com", "googlemail.com",
	"protonmail.com", "proton.me", "gmx.com", "gmx.de", "gmx.net", "web.de",
	"mail.com", "email.com", "ymail.com", "rocketmail.com", "yahoo.co.uk",
	"yahoo.fr", "yahoo.de", "yahoo.es", "yahoo.it", "yahoo.co.in",
	"yahoo.co.jp", "yahoo.com.br", "yahoo.ca", "hotmail.co.uk", "hotmail.fr",
	"hotmail.de", "hotmail.it", "hotmail.es", "outlook.fr", "outlook.de",
	"outlook.es", "live.co.uk", "live.fr", "comcast.net", "verizon.net",
	"att.net", "sbcglobal.net", "bellsouth.net", "cox.net", "charter.net",
	"btinternet.com", "sky.com", "virginmedia.com", "orange.fr",
	"wanadoo.fr", "free.fr", "laposte.net", "sfr.fr", "libero.it",
	"t-online.de", "yandex.ru", "yandex.com", "mail.ru", "qq.com", "163.com",
	"126.com", "naver.com", "zoho.com", "fastmail.com", "hey.com",
	"tutanota.com", "uol.com.br", "bol.com.br", "rediffmail.com", "shaw.ca",
	"rogers.com", "bigpond.com", "optusnet.com.au",
}

var popularSet = func() map[string]struct{} {
	m := make(map[string]struct{}, len(popularDomains))
	for _, d := range popularDomains {
		m[d] = struct{}{}
	}
	return m
}()

// minFuzzyName is the shortest provider name (the label before the public
// part: "gmail" in gmail.com) whose misspellings are corrected. Shorter names
// (aol, msn, me, gmx, web, live) are one keystroke away from unrelated real
// domains, so for them only the top-level part is corrected (aol.cmo →
// aol.com).
const minFuzzyName = 5

// tldTypos are mistyped top-level parts that are themselves real ccTLDs, so
// the public-suffix test below would otherwise protect them. gmail.cm and
// gmail.om are notorious typo-squats.
var tldTypos = map[string]string{"co": "com", "cm": "com", "om": "com", "ne": "net"}

// suggestDomain returns a popular provider domain that domain is probably a
// typo of, or "" when there is none. It compares the name ("gmial") and the
// suffix ("con") separately with optimal string alignment distance (a
// transposition is one edit, so gmial → gmail is 1):
//
//   - the name may be one edit off, or two for names of seven letters or
//     more that still start with the right letter (hotmail, outlook);
//   - the suffix may be one edit off, but only when what was typed is not a
//     real public suffix: yahoo.com.ar and email.cz are real domains, not
//     typos of yahoo.com.br and email.com; tldTypos lists the exceptions;
//   - at most two edits in all.
func suggestDomain(domain string) string {
	if _, ok := popularSet[domain]; ok {
		return ""
	}
	name, suffix := splitName(domain)
	suffixIsReal := isPublicSuffix(suffix)
	best, bestDist := "", 3
	for _, p := range popularDomains {
		pname, psuffix := splitName(p)
		ds := osaDistance(suffix, psuffix)
		if ds > 1 || ds == 1 && suffixIsReal && tldTypos[suffix] != psuffix {
			continue
		}
		dn := osaDistance(name, pname)
		switch {
		case dn == 0:
		case len(pname) < minFuzzyName:
			continue
		case dn == 1:
		case dn == 2 && len(pname) >= 7 && name[0] == pname[0]:
		default:
			continue
		}
		if d := dn + ds; d <= 2 && d < bestDist {
			best, bestDist = p, d
		}
	}
	return best
}

// isPublicSuffix reports whether s is a suffix under which the public
// registers domains (com, co.uk, com.ar), as opposed to a slip such as con.
func isPublicSuffix(s string) bool {
	ps, icann := publicsuffix.PublicSuffix(s)
	return icann && ps == s
}

// splitName splits a domain at its first dot: "gmail", "com" for gmail.com
// and "yahoo", "co.uk" for yahoo.co.uk. Good enough for the provider list,
// whose names are all second-level labels.
func splitName(domain string) (name, suffix string) {
	if i := strings.IndexByte(domain, '.'); i >= 0 {
		return domain[:i], domain[i+1:]
	}
	return domain, ""
}

// osaDistance is the optimal string alignment distance between a and b
// (Levenshtein plus adjacent transpositions), on bytes: domains here are
// ASCII.
func osaDistance(a, b string) int {
	if a == b {
		return 0
	}
	// Three rolling rows: the transposition step looks two rows back.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
