//go:build race

package webhook_test

// raceEnabled: the race detector slows delivery about tenfold; load tests
// send less.
const raceEnabled = true
