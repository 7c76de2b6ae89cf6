package extract

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteFuzzSeeds regenerates the checked-in seed corpora under
// testdata/fuzz from the fixture builders, so the seeds are reproducible
// and contain nothing that is not ours:
//
//	CONCIERGE_WRITE_FUZZ_SEEDS=1 go test -run TestWriteFuzzSeeds ./internal/knowledge/extract/
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("CONCIERGE_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set CONCIERGE_WRITE_FUZZ_SEEDS=1 to regenerate testdata/fuzz")
	}
	seeds := map[string]map[string][]byte{
		"FuzzExtractPDF": {
			"multi-page":    buildPDF(pdfSpec{Title: "Price list", Pages: [][]string{{"#Prices", "Starter costs 19 euros.", "", "Enterprise on request."}, {"Page two."}}}),
			"compressed":    buildPDF(pdfSpec{Title: "Zipped", Compress: true, Pages: [][]string{{"Compressed content stream."}}}),
			"pdf-2.0":       buildPDF(pdfSpec{Version: "2.0", Pages: [][]string{{"Version two."}}}),
			"xref-stream":   xrefStreamPDF("7", "1"),
			"objstm-huge-n": xrefStreamPDF("7", "2000000000"),
			"xref-huge":     xrefStreamPDF("10000000000", "1"),
		},
		"FuzzExtractDOCX": {
			"handbook": buildZipMethod(t, docxParts("Handbook", wp("Titel", "Handbook")+wp("berschrift1", "Leave")+
				wp("", "25 days.")+wtable([]string{"Days", "Pay"}, []string{"1-5", "100%"})), zip.Store),
			"deflated":    buildZip(t, docxParts("", wp("berschrift2", "Heading")+wp("", "Body"))),
			"textbox":     buildZipMethod(t, docxParts("", `<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:t>Box</w:t></mc:Choice><mc:Fallback><w:t>Old</w:t></mc:Fallback></mc:AlternateContent><w:t>a</w:t><w:tab/><w:br/></w:r></w:p>`), zip.Store),
			"zip64-claim": zip64Claim(t, buildZip(t, docxParts("T", wp("", "x"))), 1_000_000_000),
		},
		"FuzzPDFGoContent": {
			"text-operators": []byte("BT /F1 12 Tf 72 700 Td (Hello) Tj 0 -14 Td [(Wor) -300 (ld)] TJ T* (x) ' 1 2 (y) \" ET"),
			"inline-image":   []byte("BT /F1 12 Tf 1 0 0 1 72 700 Tm 14 TL (a) Tj T* T* (b) Tj ET BI /W 1 ID \x00\xff EI"),
		},
	}
	for _, name := range []string{"handbook.md", "pricing.html", "faq-small.html", "customers.csv", "notes.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		target := map[string]string{".md": "FuzzExtractMarkdown", ".html": "FuzzExtractHTML", ".csv": "FuzzExtractCSV", ".txt": "FuzzExtractCSV"}[filepath.Ext(name)]
		if seeds[target] == nil {
			seeds[target] = map[string][]byte{}
		}
		seeds[target][name] = b
	}
	for target, files := range seeds {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
			if err := os.WriteFile(filepath.Join(dir, "seed-"+name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
