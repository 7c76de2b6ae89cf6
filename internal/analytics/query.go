package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/store"
)

// between is a half-open time condition on a column.
func between(col string, w Window) (string, []any) {
	return col + " >= ? AND " + col + " < ?", []any{w.Start, w.End}
}

// bucketSeconds is the grain at which instants are read for day series:
// a quarter hour divides every time zone's offset.
const bucketSeconds = 900

// bucket is the SQL expression of the quarter hour (seconds since the
// epoch / 900) of a timestamp column.
func (s *Service) bucket(col string) string {
	if s.db.Dialect() == store.Postgres {
		return fmt.Sprintf("CAST(FLOOR(EXTRACT(EPOCH FROM %s) / %d) AS BIGINT)", col, bucketSeconds)
	}
	return fmt.Sprintf("(CAST(strftime('%%s', %s) AS INTEGER) / %d)", col, bucketSeconds)
}

// Compared is a total with the same total for the previous window.
type Compared struct {
	Value    int64 `json:"value"`
	Previous int64 `json:"previous"`
}

// RateCompared is a rate with the previous window's.
type RateCompared struct {
	Value    float64 `json:"value"`
	Previous float64 `json:"previous"`
}

// dbTime scans a timestamp an aggregate returns: PostgreSQL gives a time,
// SQLite the stored text ("2006-01-02 15:04:05.999999999-07:00").
type dbTime struct{ time.Time }

func (d *dbTime) Scan(v any) error {
	switch x := v.(type) {
	case time.Time:
		d.Time = x
		return nil
	case nil:
		d.Time = time.Time{}
		return nil
	case []byte:
		return d.parse(string(x))
	case string:
		return d.parse(x)
	}
	return fmt.Errorf("analytics: cannot read %T as a time", v)
}

func (d *dbTime) parse(s string) error {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			d.Time = t
			return nil
		}
	}
	return fmt.Errorf("analytics: cannot parse time %q", s)
}

// sums is a pass's per-day sums of several expressions over the days of
// two windows of equal length, prev then cur (one span).
type sums struct {
	from time.Time // the span's first instant
	loc  *time.Location
	vals [][]int64 // per day of the span, per expression
}

// daysCase is the SQL expression of the day of span (0 its first, in its
// time zone) of a row whose quarter hour is q (an integer expression).
// Quarter hours divide every time zone's offset, so a local day is a run
// of whole quarters: 96 of them but on the days the clocks change. The
// days of 96 quarters in a row are one arithmetic branch, any other day a
// branch of its own, so the expression stays short over any span. before
// is the condition that the row is before an instant, with its arguments:
// a comparison of q itself, or of the row's time column, which spares
// computing q but in the branch taken.
func daysCase(q string, span Window, before func(t time.Time) (string, []any)) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("CASE")
	f := span.Start.In(span.loc)
	at := func(i int) time.Time { return f.AddDate(0, 0, i) }
	length := func(i int) int64 { return quarterOf(at(i+1)) - quarterOf(at(i)) }
	when := func(t time.Time) {
		c, a := before(t)
		b.WriteString(" WHEN " + c)
		args = append(args, a...)
	}
	for i := 0; i < span.Days; {
		if length(i) != 96 {
			when(at(i + 1))
			fmt.Fprintf(&b, " THEN %d", i)
			i++
			continue
		}
		k := i + 1
		for k < span.Days && length(k) == 96 {
			k++
		}
		when(at(k))
		fmt.Fprintf(&b, " THEN (%s - %d) / 96 + %d", q, quarterOf(at(i)), i)
		i = k
	}
	b.WriteString(" ELSE -1 END")
	return b.String(), args
}

// quarterBefore compares a quarter column with an instant's quarter.
func quarterBefore(col string) func(t time.Time) (string, []any) {
	return func(t time.Time) (string, []any) { return fmt.Sprintf("%s < %d", col, quarterOf(t)), nil }
}

// timeBefore compares a time column with an instant.
func timeBefore(col string) func(t time.Time) (string, []any) {
	return func(t time.Time) (string, []any) { return col + " < ?", []any{t} }
}

// span is the two windows as one: prev's first day to cur's last.
func span(cur, prev Window) Window {
	return Window{Start: prev.Start, End: cur.End, Days: prev.Days + cur.Days, loc: cur.loc}
}

// pass reads, in one scan of the rows of both windows (prev then cur, one
// span), the per-day sums of exprs.
func (s *Service) pass(ctx context.Context, sc scope, cur, prev Window, from, alias, timeCol, cond string, exprs ...string) (*sums, error) {
	scond, sargs := sc.in(alias)
	sp := span(cur, prev)
	tcond, targs := between(timeCol, sp)
	cols := make([]string, len(exprs))
	for i, e := range exprs {
		cols[i] = "COALESCE(" + e + ", 0)"
	}
	day, dargs := daysCase(s.bucket(timeCol), sp, timeBefore(timeCol))
	q := `SELECT ` + day + ` AS d, ` + strings.Join(cols, ", ") + ` FROM ` + from + ` WHERE ` + scond + ` AND ` + tcond
	if cond != "" {
		q += ` AND ` + cond
	}
	q += ` GROUP BY 1`
	rows, err := s.db.Reader().QueryxContext(ctx, s.db.Reader().Rebind(q), append(append(dargs, sargs...), targs...)...)
	if err != nil {
		return nil, fmt.Errorf("analytics: pass: %w", store.Normalize(err))
	}
	return scanSums(rows, sp, len(exprs))
}

// scanSums reads rows of (day of sp, n sums) and closes them.
func scanSums(rows *sqlx.Rows, sp Window, n int) (*sums, error) {
	defer rows.Close()
	out := &sums{from: sp.Start, loc: sp.loc, vals: make([][]int64, sp.Days)}
	for i := range out.vals {
		out.vals[i] = make([]int64, n)
	}
	v := make([]int64, n)
	var d int64
	dst := []any{&d}
	for i := range v {
		dst = append(dst, &v[i])
	}
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("analytics: sums: %w", store.Normalize(err))
		}
		if d >= 0 && d < int64(sp.Days) {
			copy(out.vals[d], v)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("analytics: sums: %w", store.Normalize(err))
	}
	return out, nil
}

// days is the span's days that w covers.
func (p *sums) days(w Window) [][]int64 {
	off := dayCount(p.from.In(p.loc), w.Start.In(p.loc))
	return p.vals[off : off+w.Days]
}

// total is expression i's sum within w.
func (p *sums) total(i int, w Window) int64 {
	var n int64
	for _, v := range p.days(w) {
		n += v[i]
	}
	return n
}

// compared is expression i's sum in cur and in prev.
func (p *sums) compared(i int, cur, prev Window) Compared {
	return Compared{Value: p.total(i, cur), Previous: p.total(i, prev)}
}

// daily is expression i's sum per day of w, zero-filled.
func (p *sums) daily(i int, w Window) []int64 {
	out := make([]int64, w.Days)
	for d, v := range p.days(w) {
		out[d] = v[i]
	}
	return out
}
