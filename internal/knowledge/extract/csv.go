package extract

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

const (
	csvRowsPerSection = 50
	// maxCSVRows bounds the work on spreadsheets exported whole; the rune
	// limit would catch them too, but later and after more parsing.
	maxCSVRows = 200_000
)

// extractCSV renders each row as "header1: value1; header2: value2" so a
// retrieved row carries the meaning of its columns, and groups rows into
// sections so passages stay within a few dozen rows.
func extractCSV(ctx context.Context, name string, data []byte, lim Limits) (*Document, error) {
	text := decodeText(data)
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = sniffDelimiter(name, text)
	r.LazyQuotes = true
	r.FieldsPerRecord = -1 // ragged rows are common in hand-made sheets
	r.TrimLeadingSpace = true

	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, newErr(ErrMalformed, err, "the CSV file could not be read (line %d)", pe.Line)
			}
			return nil, newErr(ErrMalformed, err, "the CSV file could not be read")
		}
		if len(rows) >= maxCSVRows {
			return nil, newErr(ErrTooLarge, nil, "the CSV file has more than %d rows", maxCSVRows)
		}
		if isBlankRow(rec) {
			continue
		}
		rows = append(rows, rec)
		if len(rows)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	if len(rows) == 0 {
		return &Document{}, nil
	}
	var header []string
	if looksLikeHeader(rows) {
		header = make([]string, len(rows[0]))
		for i, h := range rows[0] {
			header[i] = cleanInline(h)
		}
		rows = rows[1:]
	}
	b := newBuilder(ctx, lim)
	for i, row := range rows {
		if i > 0 && i%csvRowsPerSection == 0 {
			b.flush()
		}
		if err := b.para(renderRow(header, row)); err != nil {
			return nil, err
		}
	}
	return &Document{Sections: b.finish()}, nil
}

func renderRow(header, row []string) string {
	parts := make([]string, 0, len(row))
	for i, v := range row {
		v = cleanInline(v)
		if v == "" {
			continue
		}
		switch {
		case header == nil:
			parts = append(parts, v)
		case i < len(header) && header[i] != "":
			parts = append(parts, header[i]+": "+v)
		default:
			parts = append(parts, fmt.Sprintf("column %d: %s", i+1, v))
		}
	}
	return strings.Join(parts, "; ")
}

func isBlankRow(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// looksLikeHeader decides whether the first row names the columns: its
// cells are non-empty, distinct and not numbers, and it is not just one
// more data row (a column that holds numbers below a word, or values that
// never repeat the first row's).
func looksLikeHeader(rows [][]string) bool {
	if len(rows) < 2 {
		return false
	}
	first := rows[0]
	seen := map[string]bool{}
	for _, c := range first {
		c = strings.ToLower(strings.TrimSpace(c))
		if c == "" || seen[c] || isNumeric(c) {
			return false
		}
		seen[c] = true
	}
	sample := rows[1:min(len(rows), 51)]
	for col := range first {
		for _, row := range sample {
			if col < len(row) && isNumeric(strings.TrimSpace(row[col])) {
				return true
			}
		}
	}
	for col, h := range first {
		for _, row := range sample {
			if col < len(row) && strings.EqualFold(strings.TrimSpace(row[col]), strings.TrimSpace(h)) {
				return false
			}
		}
	}
	return true
}

func isNumeric(s string) bool {
	s = strings.NewReplacer(",", "", "$", "", "€", "", "£", "", "%", "", " ", "").Replace(s)
	if s == "" {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// sniffDelimiter picks the separator: tab for .tsv, otherwise whichever of
// , ; tab | is most frequent on the first line (";" is the default in
// locales that write decimals with commas).
func sniffDelimiter(name, text string) rune {
	if strings.EqualFold(path.Ext(name), ".tsv") {
		return '\t'
	}
	line, _, _ := strings.Cut(text[:min(len(text), 64<<10)], "\n")
	best, bestN := ',', strings.Count(line, ",")
	for _, c := range []rune{';', '\t', '|'} {
		if n := strings.Count(line, string(c)); n > bestN {
			best, bestN = c, n
		}
	}
	return best
}
