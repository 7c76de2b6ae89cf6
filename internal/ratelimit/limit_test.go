package ratelimit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in         string
		want       Limit
		wantString string
	}{
		{"30/m", PerMinute(30), "30/m"},
		{"10/h", PerHour(10), "10/h"},
		{"120/h", PerHour(120), "120/h"},
		{"5/s", PerSecond(5), "5/s"},
		{"10/15m", Limit{Rate: 10, Burst: 10, Period: 15 * time.Minute}, "10/15m"},
		{"20/24h", Limit{Rate: 20, Burst: 20, Period: 24 * time.Hour}, "20/d"},
		{"100/d", Limit{Rate: 100, Burst: 100, Period: 24 * time.Hour}, "100/d"},
		{"1/90s", Limit{Rate: 1, Burst: 1, Period: 90 * time.Second}, "1/90s"},
		{"1/60s", PerMinute(1), "1/m"},
		{"7/1h", PerHour(7), "7/h"},
		{"3/7d", Limit{Rate: 3, Burst: 3, Period: 7 * 24 * time.Hour}, "3/7d"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
			if s := got.String(); s != tt.wantString {
				t.Errorf("String() = %q, want %q", s, tt.wantString)
			}
			again, err := Parse(got.String())
			if err != nil {
				t.Fatalf("Parse(String()) = %v", err)
			}
			if again != got {
				t.Errorf("round trip: Parse(%q) = %v, want %v", got.String(), again, got)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string // a fragment the message must contain
	}{
		{"", "want <count>/<period>"},
		{"off", "want <count>/<period>"},
		{"30", "want <count>/<period>"},
		{"/m", "count: empty"},
		{"0/m", "count: must be at least 1"},
		{"-1/m", `"-1" is not a positive integer`},
		{"+1/m", `"+1" is not a positive integer`},
		{"1.5/m", `"1.5" is not a positive integer`},
		{" 30/m", `" 30" is not a positive integer`},
		{"99999999999999999999/m", "out of range"},
		{"30/", "missing period"},
		{"30/x", `unknown period unit "x"`},
		{"30/ms", `period multiplier: "m" is not a positive integer`},
		{"30/M", `unknown period unit "M"`},
		{"30/0m", "multiplier: must be at least 1"},
		{"30/1.5h", "multiplier"},
		{"30/m/", `unknown period unit "/"`},
		{"30/ m", "multiplier"},
		{"10/99999999d", "period longer than"},
		{"2000000000/s", "more than one event per nanosecond"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			l, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error", tt.in, l)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "ratelimit: parse ") || !strings.Contains(msg, tt.wantErr) {
				t.Errorf("Parse(%q) error = %q, want prefix \"ratelimit: parse \" and fragment %q", tt.in, msg, tt.wantErr)
			}
		})
	}
}

func TestLimitString(t *testing.T) {
	tests := []struct {
		l    Limit
		want string
	}{
		{Limit{}, "off"},
		{Limit{Rate: 10, Burst: 20, Period: time.Minute}, "10/m (burst 20)"},
		{Limit{Rate: 10, Burst: 10, Period: 1500 * time.Millisecond}, "10/1.5s"},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.l, got, tt.want)
		}
	}
}

func TestOff(t *testing.T) {
	ctx := context.Background()
	var off Off
	for range 1000 {
		got, err := Allow(ctx, off, "k", PerHour(1))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Result{Allowed: true, Remaining: 1}, got); diff != "" {
			t.Fatalf("Off (-want +got):\n%s", diff)
		}
	}
	if err := off.Reset(ctx, "k"); err != nil {
		t.Fatal(err)
	}
}
