package store

import (
	"slices"
	"testing"
)

func TestRowsAndPowerChunks(t *testing.T) {
	if got := Rows(2, 3); got != "(?, ?, ?), (?, ?, ?)" {
		t.Fatalf("Rows(2, 3) = %q", got)
	}
	if Rows(0, 3) != "" {
		t.Fatal("Rows(0, …) must be empty")
	}
	for n, want := range map[int][]int{0: nil, 1: {1}, 23: {16, 4, 2, 1}, 64: {64}, 130: {64, 64, 2}} {
		if got := PowerChunks(n, 64); !slices.Equal(got, want) {
			t.Errorf("PowerChunks(%d, 64) = %v, want %v", n, got, want)
		}
	}
}
