package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustExtract(t *testing.T, name string, data []byte) *Document {
	t.Helper()
	doc, err := Extract(context.Background(), name, data, Limits{})
	if err != nil {
		t.Fatalf("Extract(%s): %v", name, err)
	}
	return doc
}

// paths lists the heading path of every section, joined by " > ".
func paths(doc *Document) []string {
	var out []string
	for _, s := range doc.Sections {
		out = append(out, strings.Join(s.HeadingPath, " > "))
	}
	return out
}

func sectionText(doc *Document, path string) string {
	for _, s := range doc.Sections {
		if strings.Join(s.HeadingPath, " > ") == path {
			return s.Text
		}
	}
	return ""
}

func allText(doc *Document) string {
	var parts []string
	for _, s := range doc.Sections {
		parts = append(parts, s.Text)
	}
	return strings.Join(parts, "\n\n")
}

func assertContains(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text does not contain %q:\n%s", w, text)
		}
	}
}

func assertMissing(t *testing.T, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("text contains %q:\n%s", w, text)
		}
	}
}

func TestExtractMarkdown(t *testing.T) {
	doc := mustExtract(t, "handbook.md", readTestdata(t, "handbook.md"))
	if doc.Format != "markdown" || doc.Title != "Acme Support Handbook" {
		t.Errorf("format, title = %q, %q", doc.Format, doc.Title)
	}
	want := []string{"", "Plans and pricing", "Plans and pricing > Starter", "Plans and pricing > Enterprise",
		"Plans and pricing > Enterprise > Security review", "Refunds"}
	if diff := cmp.Diff(want, paths(doc)); diff != "" {
		t.Errorf("heading paths (-want +got):\n%s", diff)
	}
	if got := sectionText(doc, "Plans and pricing > Starter"); got != "The Starter plan costs $19 per month and includes 2 chatbots.\n\n"+
		"- 1,000 messages per month\n- Email support within two business days\n- Community forum access" {
		t.Errorf("Starter section = %q", got)
	}
	assertContains(t, sectionText(doc, "Plans and pricing"), "See the pricing page for the current list.")
	assertContains(t, sectionText(doc, "Plans and pricing > Enterprise > Security review"), "SOC 2 Type II report\tYes")
	refunds := sectionText(doc, "Refunds")
	assertContains(t, refunds, "Refunds for annual plans are prorated.", `curl -X POST https://api.example.com/v1/refunds -d '{"invoice": "inv_123"}'`, "Refund flow diagram")
	all := allText(doc)
	assertMissing(t, all, "https://example.com/pricing", "owner: support-team", "**", "<div", "refund-flow.png")
	if doc.Pages != 1 || doc.Runes != len([]rune(sectionsJoined(doc))) {
		t.Errorf("pages, runes = %d, %d", doc.Pages, doc.Runes)
	}
}

func sectionsJoined(doc *Document) string {
	var b strings.Builder
	for _, s := range doc.Sections {
		b.WriteString(s.Text)
	}
	return b.String()
}

func TestExtractMarkdownTitleFromH1(t *testing.T) {
	doc := mustExtract(t, "x.md", []byte("intro\n\n# Real Title\n\nbody\n\n# Second\n\nmore"))
	if doc.Title != "Real Title" {
		t.Errorf("title = %q", doc.Title)
	}
	doc = mustExtract(t, "dir/No Heading.markdown", []byte("just text"))
	if doc.Title != "No Heading.markdown" {
		t.Errorf("title = %q", doc.Title)
	}
}

func TestExtractMarkdownDeepNestingFallsBackToText(t *testing.T) {
	src := strings.Repeat(">", 100000) + " deep\n\n# Heading\n\ntext"
	doc := mustExtract(t, "deep.md", []byte(src))
	assertContains(t, allText(doc), "deep", "text")
}

func TestExtractHTML(t *testing.T) {
	doc := mustExtract(t, "pricing.html", readTestdata(t, "pricing.html"))
	if doc.Format != "html" || doc.Language != "en" {
		t.Errorf("format, language = %q, %q", doc.Format, doc.Language)
	}
	// Readability takes the H1 out of the content and makes it the title.
	if doc.Title != "Pricing that grows with your team" {
		t.Errorf("title = %q", doc.Title)
	}
	want := []string{"", "Starter", "Enterprise", "Enterprise > Security"}
	if diff := cmp.Diff(want, paths(doc)); diff != "" {
		t.Errorf("heading paths (-want +got):\n%s", diff)
	}
	assertContains(t, sectionText(doc, ""), "Acme Chat is priced per workspace. Every plan includes unlimited team members, the website widget")
	sec := sectionText(doc, "Enterprise > Security")
	assertContains(t, sec, "Plan\tPrice\tChatbots\nStarter\t$19\t2\nEnterprise\tContact us\tUnlimited")
	assertMissing(t, allText(doc), "Injected by script", "window.analytics", "font-family", "Log in", "All rights reserved", "tracker.example")
}

func TestExtractHTMLKeepsH1NotTakenAsTitle(t *testing.T) {
	long := strings.Repeat("Install the agent on every host that should be monitored. ", 8)
	page := `<html><head><title>Docs</title><meta property="og:title" content="Acme Docs"></head><body><article>` +
		`<h1>Getting started</h1><p>` + long + `</p><h2>Install</h2><p>` + long + `</p></article></body></html>`
	doc := mustExtract(t, "start.html", []byte(page))
	if doc.Title != "Acme Docs" {
		t.Errorf("title = %q", doc.Title)
	}
	// Readability renames the H1 it keeps to h2; the path must still nest.
	want := []string{"Getting started", "Getting started > Install"}
	if diff := cmp.Diff(want, paths(doc)); diff != "" {
		t.Errorf("heading paths (-want +got):\n%s", diff)
	}
}

func TestExtractHTMLSmallPageFallsBackToBody(t *testing.T) {
	doc := mustExtract(t, "faq.htm", readTestdata(t, "faq-small.html"))
	if doc.Title != "Shipping FAQ" {
		t.Errorf("title = %q", doc.Title)
	}
	want := []string{"Do you ship abroad?", "How long does delivery take?"}
	if diff := cmp.Diff(want, paths(doc)); diff != "" {
		t.Errorf("heading paths (-want +got):\n%s", diff)
	}
	if got := sectionText(doc, "How long does delivery take?"); got != "Three to five days." {
		t.Errorf("section = %q", got)
	}
	assertMissing(t, allText(doc), "Home | Shop", "Acme Inc.")
}

func TestExtractText(t *testing.T) {
	doc := mustExtract(t, "notes.txt", readTestdata(t, "notes.txt"))
	want := []Section{{Text: "Meeting notes, 3 March\n\nWe agreed to move the launch to April.\nMarketing will\tprepare the announcement.\n\n" +
		"Open questions:\n- pricing for schools\n- data residency in the EU"}}
	if diff := cmp.Diff(want, doc.Sections); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if doc.Title != "notes.txt" || doc.Format != "text" || doc.Pages != 1 {
		t.Errorf("title, format, pages = %q, %q, %d", doc.Title, doc.Format, doc.Pages)
	}
}

func TestExtractTextNormalisation(t *testing.T) {
	in := "\xEF\xBB\xBFcaf\xC3\xA9\x00 ok\x07\x1b[0m  \u00a0x\r\nbad \xff byte and \u200bzero width"
	doc := mustExtract(t, "n.txt", []byte(in))
	got := doc.Sections[0].Text
	if got != "café ok[0m x\nbad \uFFFD byte and \u200bzero width" {
		t.Errorf("normalised = %q", got)
	}
	latin1 := []byte("Caf\xe9 cr\xe8me br\xfbl\xe9e \x80 5")
	if got := mustExtract(t, "l.txt", latin1).Sections[0].Text; got != "Café crème brûlée € 5" {
		t.Errorf("windows-1252 = %q", got)
	}
	utf16 := []byte{0xFF, 0xFE, 'H', 0, 'i', 0, ' ', 0, 0xAC, 0x20}
	if got := mustExtract(t, "u.txt", utf16).Sections[0].Text; got != "Hi €" {
		t.Errorf("utf-16 = %q", got)
	}
}

func TestExtractPagesForText(t *testing.T) {
	text := strings.Repeat("word ", 1300) // 6,500 runes minus the trailing space
	doc := mustExtract(t, "long.txt", []byte(text))
	if doc.Runes != 6499 || doc.Pages != 3 {
		t.Errorf("runes, pages = %d, %d", doc.Runes, doc.Pages)
	}
}

func TestExtractCSV(t *testing.T) {
	doc := mustExtract(t, "customers.csv", readTestdata(t, "customers.csv"))
	if len(doc.Sections) != 2 {
		t.Fatalf("sections = %d, want 2 (50 rows + 11 rows)", len(doc.Sections))
	}
	rows := strings.Split(doc.Sections[0].Text, "\n\n")
	if len(rows) != 50 || rows[0] != "Name: Ana A.; Country: Portugal; Plan: Enterprise; Monthly spend: 19" {
		t.Errorf("first section: %d rows, first %q", len(rows), rows[0])
	}
	last := strings.Split(doc.Sections[1].Text, "\n\n")
	if got := last[len(last)-1]; got != "Name: Zoe Q.; Country: Canada; Plan: Starter" {
		t.Errorf("ragged row = %q", got)
	}
}

func TestExtractCSVVariants(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no header.csv", "Alice,Paris\nBob,London\nAlice,Rome\n", "Alice; Paris\n\nBob; London\n\nAlice; Rome"},
		{"numbers.csv", "1,2,3\n4,5,6\n", "1; 2; 3\n\n4; 5; 6"},
		{"semicolons.csv", "Produit;Prix\nCafé;2,50\n", "Produit: Café; Prix: 2,50"},
		{"data.tsv", "a b\tc\n1\t2\n", "a b: 1; c: 2"},
		{"extra.csv", "k,v\nx,1,surplus\n", "k: x; v: 1; column 3: surplus"},
		{"quotes.csv", "q,a\n\"He said \"\"hi\"\"\",yes \"maybe\"\n", `q: He said "hi"; a: yes "maybe"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := mustExtract(t, tc.name, []byte(tc.in))
			if got := allText(doc); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExtractDOCX(t *testing.T) {
	body := wp("Titel", "Employee Handbook 2026") +
		wp("", "Welcome to the team. ", "This handbook is ", "binding.") +
		wp("berschrift1", "Leave") +
		wp("", "You get 25 days of paid leave.") +
		wp("berschrift2", "Parental leave") +
		`<w:p><w:r><w:t>Up to</w:t></w:r><w:r><w:tab/><w:t>16 weeks</w:t><w:br/><w:t>fully paid.</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>Old text</w:t></w:r><w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del></w:p>` +
		`<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:t>Chosen box</w:t></mc:Choice><mc:Fallback><w:t>Fallback box</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
		wp("MyFancyHeading", "Sick leave") +
		wtable([]string{"Days", "Pay"}, []string{"1-5", "100%"}, []string{"6+", "80%"}) +
		`<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Expenses</w:t></w:r></w:p>` +
		wp("", "Keep your receipts.")
	doc := mustExtract(t, "handbook.docx", buildZip(t, docxParts("Handbook (core title)", body)))
	if doc.Title != "Handbook (core title)" || doc.Format != "docx" {
		t.Errorf("title, format = %q, %q", doc.Title, doc.Format)
	}
	want := []Section{
		{Text: "Employee Handbook 2026\n\nWelcome to the team. This handbook is binding."},
		{HeadingPath: []string{"Leave"}, Text: "You get 25 days of paid leave."},
		{HeadingPath: []string{"Leave", "Parental leave"}, Text: "Up to\t16 weeks\nfully paid.\n\nOld text\n\nChosen box"},
		{HeadingPath: []string{"Leave", "Sick leave"}, Text: "Days\tPay\n1-5\t100%\n6+\t80%"},
		{HeadingPath: []string{"Expenses"}, Text: "Keep your receipts."},
	}
	if diff := cmp.Diff(want, doc.Sections); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}

	// Without core properties the Title paragraph, then the first Heading 1, name the document.
	doc = mustExtract(t, "x.docx", buildZip(t, docxParts("", body)))
	if doc.Title != "Employee Handbook 2026" {
		t.Errorf("title from Title style = %q", doc.Title)
	}
	doc = mustExtract(t, "x.docx", buildZip(t, docxParts("", wp("berschrift1", "Only heading")+wp("", "text"))))
	if doc.Title != "Only heading" {
		t.Errorf("title from first heading = %q", doc.Title)
	}
}

func TestExtractPDF(t *testing.T) {
	spec := pdfSpec{
		Title: "Acme Price List (2026)",
		Pages: [][]string{
			{"#Price list", "All prices are per month and exclude VAT.", "Plans can be changed at any time.", "", "Starter costs 19 euros."},
			{"Enterprise pricing is agreed per contract.", "Contact sales@acme.example for a quote."},
			{},
		},
	}
	for _, compress := range []bool{false, true} {
		spec.Compress = compress
		data := buildPDF(spec)
		check := func(t *testing.T, doc *Document) {
			t.Helper()
			if doc.Title != "Acme Price List (2026)" || doc.Pages != 3 || doc.Format != "pdf" {
				t.Errorf("title, pages, format = %q, %d, %q", doc.Title, doc.Pages, doc.Format)
			}
			if len(doc.Sections) != 2 {
				t.Fatalf("sections = %d, want one per page with text: %+v", len(doc.Sections), doc.Sections)
			}
			assertContains(t, doc.Sections[0].Text, "Price list", "All prices are per month and exclude VAT. Plans can be changed at any time.", "Starter costs 19 euros.")
			assertContains(t, doc.Sections[1].Text, "Enterprise pricing is agreed per contract. Contact sales@acme.example for a quote.")
		}
		t.Run("pdftotext", func(t *testing.T) {
			if pdftotextPath() == "" {
				t.Skip("pdftotext is not installed")
			}
			check(t, mustExtract(t, "prices.pdf", data))
		})
		t.Run("go", func(t *testing.T) {
			withoutPdftotext(t)
			check(t, mustExtract(t, "prices.pdf", data))
		})
	}
}

// withoutPdftotext forces the pure-Go reader for the rest of the test.
func withoutPdftotext(t *testing.T) {
	saved := pdftotextPath
	pdftotextPath = func() string { return "" }
	t.Cleanup(func() { pdftotextPath = saved })
}

func TestExtractPDFGoReaderInProcess(t *testing.T) {
	data := buildPDF(pdfSpec{Title: "T", Version: "2.0", Pages: [][]string{{"Hello (world) \\ back", "", "Second paragraph."}}})
	res, err := readPDFGo(context.Background(), data, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&pdfText{Title: "T", Pages: []string{"Hello (world) \\ back\n\nSecond paragraph."}}, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := readPDFGo(context.Background(), data, 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("output limit: err = %v", err)
	}
}

func TestExtractPDFNoText(t *testing.T) {
	data := buildPDF(pdfSpec{Title: "Scan", Pages: [][]string{{}, {}}})
	for _, goOnly := range []bool{false, true} {
		if goOnly {
			withoutPdftotext(t)
		}
		_, err := Extract(context.Background(), "scan.pdf", data, Limits{})
		if !errors.Is(err, ErrEmpty) || err.Error() != "the PDF has no extractable text (scanned images?)" {
			t.Errorf("go=%v: err = %v", goOnly, err)
		}
	}
}

func TestExtractOutputLimit(t *testing.T) {
	_, err := Extract(context.Background(), "big.txt", []byte(strings.Repeat("abc def\n\n", 1000)), Limits{MaxOutputRunes: 100})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v", err)
	}
}

func TestExtractHonoursCallerCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Extract(ctx, "a.txt", []byte("hello"), Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestExtractTimeoutIsTooLarge(t *testing.T) {
	// A deadline that has passed by the time the parse starts.
	_, err := Extract(context.Background(), "a.md", []byte(strings.Repeat("# h\n\npara\n\n", 20000)), Limits{Timeout: time.Nanosecond})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "took longer than") {
		t.Errorf("err = %v", err)
	}
}
