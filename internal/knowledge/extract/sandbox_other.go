//go:build !linux

package extract

import (
	"context"
	"os/exec"
)

// readPDFIsolated has no process sandbox off Linux: the Go reader runs in
// process, behind recover() and the deadline only. Production runs on
// Linux; this keeps development on other systems working.
func readPDFIsolated(ctx context.Context, data []byte, lim Limits) (*pdfText, error) {
	return readPDFGo(ctx, data, lim.MaxOutputRunes)
}

func setDeathSignal(*exec.Cmd) {}
