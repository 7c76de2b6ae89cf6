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

// scalar runs `SELECT expr FROM from WHERE scope AND cond AND time in w`.
// alias is the table whose bot_id/workspace_id scope the rows; timeCol is
// the column the window applies to.
func (s *Service) scalar(ctx context.Context, sc scope, w Window, expr, from, alias, timeCol, cond string, args ...any) (int64, error) {
	scond, sargs := sc.in(alias)
	tcond, targs := between(timeCol, w)
	q := `SELECT COALESCE(` + expr + `, 0) FROM ` + from + ` WHERE ` + scond + ` AND ` + tcond
	if cond != "" {
		q += ` AND ` + cond
	}
	all := append(append(sargs, targs...), args...)
	var n int64
	if err := store.Get(ctx, s.db.Reader(), &n, q, all...); err != nil {
		return 0, fmt.Errorf("analytics: %w", err)
	}
	return n, nil
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

// both runs a scalar for the window and the previous one.
func (s *Service) both(ctx context.Context, sc scope, cur, prev Window, expr, from, alias, timeCol, cond string, args ...any) (Compared, error) {
	a, err := s.scalar(ctx, sc, cur, expr, from, alias, timeCol, cond, args...)
	if err != nil {
		return Compared{}, err
	}
	b, err := s.scalar(ctx, sc, prev, expr, from, alias, timeCol, cond, args...)
	return Compared{Value: a, Previous: b}, err
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

// sums is a pass's per-quarter-hour sums of several expressions.
type sums struct {
	buckets []int64   // quarter hours, ascending
	vals    [][]int64 // per bucket, per expression
}

// pass reads, in one scan of the rows of both windows (prev then cur, one
// span), the per-quarter-hour sums of exprs.
func (s *Service) pass(ctx context.Context, sc scope, cur, prev Window, from, alias, timeCol, cond string, exprs ...string) (*sums, error) {
	scond, sargs := sc.in(alias)
	span := Window{Start: prev.Start, End: cur.End}
	tcond, targs := between(timeCol, span)
	cols := make([]string, len(exprs))
	for i, e := range exprs {
		cols[i] = "COALESCE(" + e + ", 0)"
	}
	q := `SELECT ` + s.bucket(timeCol) + ` AS b, ` + strings.Join(cols, ", ") + ` FROM ` + from + ` WHERE ` + scond + ` AND ` + tcond
	if cond != "" {
		q += ` AND ` + cond
	}
	q += ` GROUP BY 1 ORDER BY 1`
	rows, err := s.db.Reader().QueryxContext(ctx, s.db.Reader().Rebind(q), append(sargs, targs...)...)
	if err != nil {
		return nil, fmt.Errorf("analytics: pass: %w", store.Normalize(err))
	}
	return scanSums(rows, len(exprs))
}

// scanSums reads rows of (quarter, n sums), ascending, and closes them.
func scanSums(rows *sqlx.Rows, n int) (*sums, error) {
	defer rows.Close()
	out := &sums{}
	for rows.Next() {
		v := make([]int64, n)
		var b int64
		dst := []any{&b}
		for i := range v {
			dst = append(dst, &v[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("analytics: sums: %w", store.Normalize(err))
		}
		out.buckets = append(out.buckets, b)
		out.vals = append(out.vals, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("analytics: sums: %w", store.Normalize(err))
	}
	return out, nil
}

// total is expression i's sum within w.
func (p *sums) total(i int, w Window) int64 {
	var n int64
	lo, hi := w.Start.Unix()/bucketSeconds, w.End.Unix()/bucketSeconds
	for k, b := range p.buckets {
		if b >= lo && b < hi {
			n += p.vals[k][i]
		}
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
	for k, b := range p.buckets {
		if d := w.dayIndex(time.Unix(b*bucketSeconds, 0)); d >= 0 {
			out[d] += p.vals[k][i]
		}
	}
	return out
}
