//go:build linux

package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The pure-Go PDF reader runs in a child process: the running binary,
// re-executed with sandboxEnv set, which the init below turns into a PDF
// reader instead of the program. A hostile file that makes the library
// loop, recurse or allocate gigabytes then costs one killed child, not
// the server. The child has a hard data-segment limit, its own deadline,
// dies with its parent, and gets no environment but its instructions.

const (
	sandboxEnv      = "CONCIERGE_EXTRACT_SANDBOX"
	sandboxPDF      = "pdf/v1"
	sandboxMemory   = 512 << 20 // RLIMIT_DATA: the heap cannot grow past this
	sandboxMaxInput = 1 << 30
)

func init() {
	if os.Getenv(sandboxEnv) == sandboxPDF {
		os.Exit(sandboxChild(os.Stdin, os.Stdout))
	}
}

// childResult is the child's answer on stdout.
type childResult struct {
	pdfText
	Kind  string `json:"kind,omitempty"`
	Msg   string `json:"msg,omitempty"`
	Cause string `json:"cause,omitempty"`
}

var errKinds = map[string]error{
	"unsupported": ErrUnsupported, "empty": ErrEmpty, "too_large": ErrTooLarge, "malformed": ErrMalformed,
}

func sandboxChild(in io.Reader, out io.Writer) int {
	if !raceEnabled {
		lim := &syscall.Rlimit{Cur: sandboxMemory, Max: sandboxMemory}
		_ = syscall.Setrlimit(syscall.RLIMIT_DATA, lim)
	}
	debug.SetMemoryLimit(sandboxMemory / 2)
	go memoryWatchdog()
	maxRunes, _ := strconv.Atoi(os.Getenv(sandboxEnv + "_MAX_RUNES"))
	timeout, _ := time.ParseDuration(os.Getenv(sandboxEnv + "_TIMEOUT"))
	if maxRunes <= 0 || timeout <= 0 {
		return 2
	}
	// The parent kills us at its deadline; this is for a parent that died
	// in a way Pdeathsig did not catch.
	time.AfterFunc(timeout+5*time.Second, func() { os.Exit(3) })
	data, err := io.ReadAll(io.LimitReader(in, sandboxMaxInput))
	if err != nil {
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var res childResult
	text, err := readPDFGo(ctx, data, maxRunes)
	if err != nil {
		res.Kind, res.Msg, res.Cause = "malformed", "the PDF could not be read; it may be damaged", err.Error()
		var ee *extractError
		if errors.As(err, &ee) {
			res.Msg = ee.msg
			if ee.cause != nil {
				res.Cause = ee.cause.Error()
			}
			for k, v := range errKinds {
				if ee.kind == v {
					res.Kind = k
				}
			}
		} else if ctx.Err() != nil {
			res.Kind, res.Msg = "too_large", "processing the PDF took too long"
		}
	} else {
		res.pdfText = *text
	}
	if err := json.NewEncoder(out).Encode(res); err != nil {
		return 2
	}
	return 0
}

// memoryWatchdog ends the child when its heap passes the limit. RLIMIT_DATA
// does that abruptly in normal builds; race builds cannot use it, and the
// watchdog also catches growth between two large allocations.
func memoryWatchdog() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for range time.Tick(20 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > sandboxMemory {
			fmt.Fprintln(os.Stderr, "pdf sandbox: out of memory")
			os.Exit(4)
		}
	}
}

// readPDFIsolated runs readPDFGo in a child process.
func readPDFIsolated(ctx context.Context, data []byte, lim Limits) (*pdfText, error) {
	timeout := remaining(ctx, lim.Timeout)
	if timeout <= 0 {
		return nil, context.DeadlineExceeded
	}
	exe, err := sandboxExecutable()
	if err != nil {
		// No way to re-execute ourselves (no /proc?): degrade to the
		// in-process reader rather than refusing every PDF.
		return readPDFGo(ctx, data, lim.MaxOutputRunes)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = []string{
		sandboxEnv + "=" + sandboxPDF,
		sandboxEnv + "_MAX_RUNES=" + strconv.Itoa(lim.MaxOutputRunes),
		sandboxEnv + "_TIMEOUT=" + timeout.String(),
		"GOMAXPROCS=2",
	}
	if raceEnabled {
		// A race-enabled binary sleeps a second at exit by default.
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	cmd.Stdin = bytes.NewReader(data)
	// JSON may escape text up to 6 bytes per byte in the worst case;
	// the child enforces the rune limit itself, this only bounds a child
	// gone wrong.
	stdout := &capBuffer{max: lim.MaxOutputRunes*8 + 1<<20, onFull: cancel}
	stderr := &capBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setDeathSignal(cmd)
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if runErr != nil || stdout.full {
		msg := strings.TrimSpace(stderr.String())
		cause := fmt.Errorf("pdf sandbox: %v: %s", runErr, msg)
		if strings.Contains(msg, "out of memory") || strings.Contains(msg, "cannot allocate memory") || strings.Contains(msg, "pthread_create failed") {
			return nil, newErr(ErrTooLarge, cause, "the PDF needs too much memory to process")
		}
		return nil, newErr(ErrMalformed, cause, "the PDF could not be read; it may be damaged")
	}
	var res childResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return nil, newErr(ErrMalformed, fmt.Errorf("pdf sandbox: bad answer: %w", err), "the PDF could not be read; it may be damaged")
	}
	if res.Kind != "" {
		kind, ok := errKinds[res.Kind]
		if !ok {
			kind = ErrMalformed
		}
		return nil, newErr(kind, errors.New(res.Cause), "%s", res.Msg)
	}
	return &res.pdfText, nil
}

// sandboxExecutable is this very binary: /proc/self/exe survives the file
// being replaced on disk during a deploy, os.Executable is the fallback.
func sandboxExecutable() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// setDeathSignal has the kernel kill the child when this process dies, so
// no parser outlives a crashed or killed server.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
