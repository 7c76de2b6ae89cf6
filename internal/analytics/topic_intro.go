package analytics

// Self-introductions and sign-offs name who asks ("hi its sarah", "my name
// is tom becker", "hey its mike from acme llc", "thanks, jo"), not what is
// asked: their names would keep two askings of one thing apart.

// greetings may open a message before an introduction.
var greetings = map[string]bool{"hi": true, "hey": true, "hello": true, "hiya": true, "heya": true,
	"yo": true, "morning": true, "afternoon": true, "evening": true, "good": true, "there": true,
	"dear": true, "hallo": true, "hola": true, "bonjour": true, "greetings": true, "howdy": true, "team": true,
	"all": true, "folks": true, "guys": true, "sir": true, "madam": true}

// companySuffixes end a company's name.
var companySuffixes = map[string]bool{"llc": true, "inc": true, "ltd": true, "limited": true, "co": true,
	"corp": true, "gmbh": true, "plc": true, "pty": true, "sa": true, "srl": true, "bv": true, "ag": true,
	"company": true, "group": true, "studio": true, "studios": true, "agency": true}

// introduced marks the words of a message that introduce its writer: its
// opening greeting, the
// name after "my name is", "this is", "it's" or "i'm" at the start (after
// a greeting), a company after "from" that ends with a suffix ("acme
// llc"), and a name after a closing "thanks". A name is one or two words
// the lexicon does not know; "i'm in ireland" introduces no one.
func (x *lexIndex) introduced(words []string) []bool {
	var skip []bool
	mark := func(i int) {
		if skip == nil {
			skip = make([]bool, len(words))
		}
		skip[i] = true
	}
	// name marks up to two unknown words from i; it reports how many.
	name := func(i int) int {
		n := 0
		for ; n < 2 && i+n < len(words) && !x.known(words[i+n]) && !hasDigit(words[i+n]); n++ {
			mark(i + n)
		}
		return n
	}
	start := 0
	for start < len(words) && greetings[words[start]] {
		start++
	}
	if start < len(words) {
		for i := range start {
			mark(i) // "hi", "good morning": no more than "hi" alone
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "name" && i+1 < len(words) && words[i+1] == "is":
			if name(i+2) > 0 {
				mark(i)
			}
		case w == "names" && i > 0 && words[i-1] == "my":
			if name(i+1) > 0 {
				mark(i)
			}
		case i == start && (w == "its" || w == "im"):
			name(i + 1)
		case i == start && w == "this" && i+1 < len(words) && words[i+1] == "is":
			name(i + 2)
		case i == start && w == "i" && i+1 < len(words) && words[i+1] == "am":
			name(i + 2)
		case w == "from":
			for n := 1; n <= 3 && i+n < len(words); n++ {
				if companySuffixes[words[i+n]] {
					for k := i + 1; k <= i+n; k++ {
						mark(k)
					}
					break
				}
			}
		case (w == "thanks" || w == "thank" || w == "cheers" || w == "regards" || w == "thx") &&
			i+3 >= len(words):
			j := i + 1
			if j < len(words) && words[j] == "you" {
				j++
			}
			if j < len(words) && len(words)-j <= 2 {
				name(j)
			}
		}
	}
	return skip
}
