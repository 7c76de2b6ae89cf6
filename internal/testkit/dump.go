package testkit

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"concierge/internal/store"
)

// Tables lists the application's tables (migration bookkeeping excluded).
func Tables(t testing.TB, db *store.DB) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version'`
	if db.Dialect() == store.Postgres {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'goose_db_version'`
	}
	var tables []string
	if err := store.Select(context.Background(), db.Reader(), &tables, q); err != nil {
		t.Fatal(err)
	}
	sort.Strings(tables)
	return tables
}

// Columns lists a table's columns.
func Columns(t testing.TB, db *store.DB, table string) []string {
	t.Helper()
	q := `SELECT name FROM pragma_table_info(?)`
	if db.Dialect() == store.Postgres {
		q = `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ?`
	}
	var cols []string
	if err := store.Select(context.Background(), db.Reader(), &cols, q, table); err != nil {
		t.Fatal(err)
	}
	return cols
}

// Dump renders every row of every table as text, rows sorted, so two dumps
// compare equal exactly when the data is the same (a snapshot for "nothing
// changed" assertions, or a haystack to grep for secrets).
func Dump(t testing.TB, db *store.DB) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, table := range Tables(t, db) {
		rows, err := db.Reader().QueryxContext(ctx, `SELECT * FROM `+table)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for rows.Next() {
			vals, err := rows.SliceScan()
			if err != nil {
				t.Fatal(err)
			}
			var line strings.Builder
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&line, "%v|", v)
			}
			lines = append(lines, line.String())
		}
		rows.Close()
		sort.Strings(lines)
		fmt.Fprintf(&b, "== %s\n%s\n", table, strings.Join(lines, "\n"))
	}
	return b.String()
}

// RowsReferencing counts, in every table with a column named column, the
// rows whose column equals id (e.g. what a deleted bot left behind).
func RowsReferencing(t testing.TB, db *store.DB, column string, id int64) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range Tables(t, db) {
		for _, c := range Columns(t, db, table) {
			if c != column {
				continue
			}
			var n int
			if err := store.Get(context.Background(), db.Reader(), &n, `SELECT COUNT(*) FROM `+table+` WHERE `+column+` = ?`, id); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				out[table] = n
			}
		}
	}
	return out
}

// DumpDiff lists the lines of two dumps that only one of them has, each
// marked - (before only) or + (after only), under its table's header.
func DumpDiff(before, after string) string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		table := ""
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "== ") {
				table = l
				continue
			}
			m[table+"\n"+l]++
		}
		return m
	}
	b, a := count(before), count(after)
	var out []string
	for k, n := range b {
		if a[k] < n {
			out = append(out, "- "+strings.Replace(k, "\n", ": ", 1))
		}
	}
	for k, n := range a {
		if b[k] < n {
			out = append(out, "+ "+strings.Replace(k, "\n", ": ", 1))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
