//go:build race

package extract

// raceEnabled: the race detector maps terabytes of shadow memory, which an
// RLIMIT_DATA cap on the sandbox child would refuse.
const raceEnabled = true
