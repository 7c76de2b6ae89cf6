package emailcheck

import "testing"

func TestSuggestDomain(t *testing.T) {
	tests := []struct {
		in, want string // want "" means no suggestion
	}{
		{"gmial.com", "gmail.com"},
		{"gamil.com", "gmail.com"},
		{"gmal.com", "gmail.com"},
		{"gmaill.com", "gmail.com"},
		{"gnail.com", "gmail.com"},
		{"gmail.con", "gmail.com"},
		{"gmail.cmo", "gmail.com"},
		{"gmail.co", "gmail.com"},
		{"gmail.cm", "gmail.com"},
		{"gmial.con", "gmail.com"},
		{"hotmial.com", "hotmail.com"},
		{"hotmal.com", "hotmail.com"},
		{"homtail.com", "hotmail.com"},
		{"hotmil.con", "hotmail.com"},
		{"hotmial.co.uk", "hotmail.co.uk"},
		{"yaho.com", "yahoo.com"},
		{"yahooo.com", "yahoo.com"},
		{"yahoo.co", "yahoo.com"},
		{"outlok.com", "outlook.com"},
		{"outllok.com", "outlook.com"},
		{"iclod.com", "icloud.com"},
		{"icloud.con", "icloud.com"},
		{"aol.cmo", "aol.com"},
		{"aol.co", "aol.com"},
		{"comcast.ent", "comcast.net"},

		// Real domains, exact providers and far-off names get nothing.
		{"gmail.com", ""},
		{"mail.com", ""},
		{"email.com", ""},
		{"ymail.com", ""},
		{"yahoo.co.uk", ""},
		{"email.cz", ""},     // a real provider, two edits from email.com
		{"yahoo.com.ar", ""}, // a real country domain, not a typo of yahoo.com.br
		{"hotmail.ca", ""},   // likewise
		{"aoll.com", ""},     // short names are only corrected in the suffix
		{"mc.com", ""},       // one keystroke from me.com, but a company
		{"horizon.net", ""},  // two edits from verizon.net, different first letter
		{"acme.io", ""},
		{"gmail.company", ""}, // a subdomain-looking typo is too far
	}
	for _, tt := range tests {
		if got := suggestDomain(tt.in); got != tt.want {
			t.Errorf("suggestDomain(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOSADistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"gmail", "gmail", 0},
		{"gmial", "gmail", 1}, // transposition
		{"gmal", "gmail", 1},
		{"gmaill", "gmail", 1},
		{"gnail", "gmail", 1},
		{"ca", "abc", 3}, // OSA, unlike full Damerau, cannot edit a transposed pair again
		{"hotmail", "outlook", 6},
	}
	for _, tt := range tests {
		if got := osaDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("osaDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
