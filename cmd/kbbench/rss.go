package main

import (
	"os"
	"strconv"
	"strings"

	"concierge/internal/account"
)

func accountInput(email string) account.RegisterInput {
	return account.RegisterInput{Email: email, Password: "benchmark password"}
}

// resetPeakRSS restarts the kernel's high-water mark (Linux: writing 5 to
// clear_refs resets VmHWM), so each engine's peak is its own.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident set size in bytes (VmHWM).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
