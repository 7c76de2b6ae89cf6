package extract

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestListingPages: a page whose text is mostly link text (an index, a
// table of contents) or code (a source listing) is a listing; a page of
// prose with a few links and a code sample is not, and neither is a page
// too short to judge.
func TestListingPages(t *testing.T) {
	var index, listing, prose strings.Builder
	for i := range 80 {
		fmt.Fprintf(&index, `<li><a href="p%d.html">Entry number %d of the index</a></li>`, i, i)
		fmt.Fprintf(&listing, "def function_%d(argument):\n    return argument * %d\n", i, i)
	}
	for range 12 {
		prose.WriteString(`<p>The service keeps its configuration in one file; edit it, then restart the service.
See <a href="conf.html">configuration</a> for every setting and the defaults it ships with.</p>`)
	}
	prose.WriteString(`<pre><code>concierge serve --port 8080</code></pre>`)
	page := func(body string) []byte {
		return []byte(`<html><head><title>Page</title></head><body><main><h1>Page</h1>` + body + `</main></body></html>`)
	}
	for _, c := range []struct {
		name string
		body string
		want bool
	}{
		{"index", "<ul>" + index.String() + "</ul>", true},
		{"source listing", "<p>Source code for the module.</p><pre>" + listing.String() + "</pre>", true},
		{"prose with links and code", prose.String(), false},
		{"short list of links", `<ul><li><a href="a.html">A</a></li><li><a href="b.html">B</a></li></ul>`, false},
	} {
		doc, err := Extract(context.Background(), c.name+".html", page(c.body), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if doc.Listing != c.want {
			t.Errorf("%s: Listing = %v, want %v", c.name, doc.Listing, c.want)
		}
	}
	// Other formats are never listings.
	doc, err := Extract(context.Background(), "notes.md", []byte("# Notes\n\n"+strings.Repeat("[link](x.html) ", 200)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Listing {
		t.Error("a markdown file was judged a listing")
	}
}
