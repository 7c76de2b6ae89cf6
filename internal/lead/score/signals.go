package score

import (
	"fmt"
	"net/url"
	"strings"
)

// Behaviour adjusts the score by at most maxBoost up and maxPenalty down.
// What a visitor says is the primary evidence; clicks and visits only
// support it. With these bounds a visitor who says nothing cannot pass the
// default mql threshold on behaviour alone, and a strong conversation is not
// sunk by an odd referrer.
const (
	maxBoost   = 15
	maxPenalty = -10
)

// pageKind classifies a viewed page by its path and title.
type pageKind struct {
	name   string // how the signal is described
	points int
	cap    int // most points this kind can add in total
	keys   []string
}

var pageKinds = []pageKind{
	{"careers", -5, -5, []string{"career", "jobs", "job-", "/job", "join-us", "joinus", "hiring", "internship", "vacanc"}},
	{"high-intent", 3, 6, []string{"pricing", "price", "plans", "demo", "contact", "quote", "book", "checkout", "buy", "trial", "signup", "sign-up", "get-started", "fees", "offers", "schedule", "enquire", "enquiry", "apply"}},
	{"evaluation", 2, 4, []string{"docs", "documentation", "api", "integration", "security", "case-stud", "customers", "enterprise", "compare", "-vs-", "/vs", "reviews", "testimonials", "exchange"}},
}

// behaviour scores the signals and explains each point.
func behaviour(s Signals) ([]Evidence, int) {
	ev := []Evidence{}
	total := 0
	add := func(signal string, points int) {
		ev = append(ev, Evidence{Source: SourceSignal, Signal: signal, Points: points, Turn: -1})
		total += points
	}
	if s.MeetingBooked {
		add("meeting booked", 10)
	}
	if f := s.Form; f != nil {
		var fields []string
		points := 0
		if f.Email {
			fields, points = append(fields, "e-mail"), points+2
		}
		if f.Phone {
			fields, points = append(fields, "phone"), points+3
		}
		if f.Company {
			fields, points = append(fields, "company"), points+2
		}
		if len(fields) > 0 {
			add("lead form submitted ("+strings.Join(fields, ", ")+")", points)
		}
	}
	kindTotal := map[string]int{}
	seen := map[string]bool{}
	seconds := 0
	for _, p := range s.Pages {
		seconds += max(0, p.Seconds)
		path := pagePath(p.URL)
		key := strings.ToLower(path + " " + p.Title)
		for _, k := range pageKinds {
			if !containsAny(key, k.keys) || seen[path] {
				continue
			}
			seen[path] = true
			points := k.points
			if k.cap > 0 {
				points = min(points, k.cap-kindTotal[k.name])
			} else {
				points = max(points, k.cap-kindTotal[k.name])
			}
			kindTotal[k.name] += points
			if points != 0 {
				add("viewed "+path, points)
			}
			break
		}
	}
	switch {
	case seconds >= 600:
		add(fmt.Sprintf("%d min on site", seconds/60), 4)
	case seconds >= 180:
		add(fmt.Sprintf("%d min on site", seconds/60), 2)
	}
	switch {
	case s.Sessions >= 4:
		add(fmt.Sprintf("returning visitor (%d visits)", s.Sessions), 4)
	case s.Sessions >= 2:
		add(fmt.Sprintf("returning visitor (%d visits)", s.Sessions), 2)
	}
	if r := strings.ToLower(s.Referrer); r != "" {
		switch {
		case containsAny(r, []string{"linkedin.com/jobs", "indeed.", "naukri.", "glassdoor.", "monster.", "instahyre.", "wellfound.", "angel.co/jobs", "foundit.", "shine.com"}):
			add("arrived from a job board", -5)
		case containsAny(r, []string{"g2.com", "capterra.", "getapp.", "trustradius.", "softwaresuggest.", "softwareadvice."}):
			add("arrived from a software review site", 3)
		case containsAny(r, []string{"gclid=", "utm_medium=cpc", "utm_medium=ppc", "utm_medium=paid", "msclkid="}):
			add("arrived from a paid ad", 2)
		}
	}
	return ev, clamp(total, maxPenalty, maxBoost)
}

// pagePath is the path of a page URL ("/pricing"), or the URL itself when
// it does not parse.
func pagePath(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Path == "" {
		if err == nil && u.Host != "" {
			return "/"
		}
		return raw
	}
	return u.Path
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
