package extract

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestHeadingAnchorsAndPermalinks: every way a page names a section's
// fragment is kept as the section's anchor, and the permalink symbols
// beside headings ("¶", "#") are chrome, neither heading nor text.
func TestHeadingAnchorsAndPermalinks(t *testing.T) {
	page := `<html><head><title>Guide</title></head><body><main>
<h1>Guide</h1>
<p>Opening words of the guide, long enough to be the main content of the page for the reader.</p>
<h2 id="install">Install<a class="headerlink" href="#install" title="Link">¶</a></h2>
<p>Run the installer and follow the steps it shows, then restart the service to finish.</p>
<section id="configure"><h2>Configure</h2>
<p>Edit the configuration file and set the port and the data directory before the first start.</p></section>
<h2><a name="upgrade"></a>Upgrade</h2>
<p>Stop the service, replace the binary and start it again; migrations run by themselves.</p>
<h2>Backups<a href="#backups">#</a></h2>
<p>Copy the database file while the service runs with the backup command it provides.</p>
<h2>Plain heading</h2>
<p>A section whose heading has no fragment at all, so nothing can link to it directly.</p>
<p>See <a href="#install">the install section</a> for more.</p>
</main></body></html>`
	doc, err := Extract(context.Background(), "guide.html", []byte(page), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Install": "install", "Configure": "configure", "Upgrade": "upgrade", "Backups": "backups",
		"Plain heading": ""}
	seen := 0
	for _, s := range doc.Sections {
		if len(s.HeadingPath) == 0 {
			continue
		}
		last := s.HeadingPath[len(s.HeadingPath)-1]
		if strings.ContainsAny(last, "¶#") || strings.ContainsAny(s.Text, "¶") {
			t.Errorf("permalink kept: %q / %q", s.HeadingPath, s.Text)
		}
		if a, ok := want[last]; ok {
			seen++
			if s.Anchor != a {
				t.Errorf("section %q: anchor %q, want %q", last, s.Anchor, a)
			}
		}
	}
	if seen != len(want) {
		t.Fatalf("saw %d of %d sections: %+v", seen, len(want), doc.Sections)
	}
	// A link with words is text, not a permalink.
	if !slices.ContainsFunc(doc.Sections, func(s Section) bool { return strings.Contains(s.Text, "See the install section for more.") }) {
		t.Errorf("a worded fragment link lost its words: %+v", doc.Sections)
	}
}

// TestLeadOutsideMainContent: a manual page's NAME line sits in a header
// block the main-content reader drops; it comes back as the first section
// (once: not when the content already has it).
func TestLeadOutsideMainContent(t *testing.T) {
	body := strings.Repeat(`<p>The command records the current state of the working directory and the index, and
goes back to a clean working directory; the changes can be restored later on top of another commit.</p>`, 6)
	page := `<html><head><title>git-stash(1)</title></head><body>
<div id="header"><h1>git-stash(1) Manual Page</h1><h2>NAME</h2><div class="sectionbody">
<p>git-stash - Stash the changes in a dirty working directory away</p></div></div>
<div id="content"><div class="sect1"><h2 id="_description">DESCRIPTION</h2><div class="sectionbody">` + body + `</div></div></div>
<div id="footer">Last updated 2024</div></body></html>`
	doc, err := Extract(context.Background(), "git-stash.html", []byte(page), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	first := doc.Sections[0]
	if first.Text != "git-stash - Stash the changes in a dirty working directory away" || !slices.Equal(first.HeadingPath, []string{"NAME"}) {
		t.Fatalf("first section %+v", first)
	}
	n := 0
	for _, s := range doc.Sections {
		n += strings.Count(s.Text, "Stash the changes in a dirty")
	}
	if n != 1 {
		t.Fatalf("the lead appears %d times", n)
	}

	// When the main content holds the opening paragraph, nothing is added.
	page2 := `<html><body><article><h1>Pricing</h1><p>Plans start at ten dollars a month for small teams.</p>` + body + `</article></body></html>`
	doc, err = Extract(context.Background(), "pricing.html", []byte(page2), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for _, s := range doc.Sections {
		n += strings.Count(s.Text, "Plans start at ten dollars")
	}
	if n != 1 {
		t.Fatalf("opening paragraph appears %d times: %+v", n, doc.Sections)
	}
}
