package analytics

import (
	"context"
	"fmt"
	"time"

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

// daily sums expr per day of the window (in its time zone), zero-filled.
func (s *Service) daily(ctx context.Context, sc scope, w Window, expr, from, alias, timeCol, cond string, args ...any) ([]int64, error) {
	scond, sargs := sc.in(alias)
	tcond, targs := between(timeCol, w)
	q := `SELECT ` + s.bucket(timeCol) + ` AS b, COALESCE(` + expr + `, 0) AS n FROM ` + from + ` WHERE ` + scond + ` AND ` + tcond
	if cond != "" {
		q += ` AND ` + cond
	}
	q += ` GROUP BY 1`
	var rows []struct {
		B int64 `db:"b"`
		N int64 `db:"n"`
	}
	if err := store.Select(ctx, s.db.Reader(), &rows, q, append(append(sargs, targs...), args...)...); err != nil {
		return nil, fmt.Errorf("analytics: series: %w", err)
	}
	out := make([]int64, w.Days)
	for _, r := range rows {
		if i := w.dayIndex(time.Unix(r.B*bucketSeconds, 0)); i >= 0 {
			out[i] += r.N
		}
	}
	return out, nil
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
