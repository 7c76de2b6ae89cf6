// Command concierge is the whole Concierge back end in one binary.
//
//	concierge serve     run the API and the job workers
//	concierge migrate   apply database migrations and exit
//	concierge backup    copy the SQLite database while it runs
//	concierge version   print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"concierge/internal/app"
	"concierge/internal/config"
	"concierge/internal/logging"
	"concierge/internal/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "concierge:", err)
		}
		os.Exit(1)
	}
}

const usage = `usage: concierge <command> [flags]

commands:
  serve     run the API server and job workers (default configuration: SQLite in ./data)
  migrate   apply pending database migrations and exit
  workspace set-plan --email EMAIL --plan NAME
            put a workspace on a plan (works while serve runs)
  credits grant --email EMAIL --credits N
            add credits to a workspace's balance (works while serve runs)
  admin impersonate --email EMAIL --admin NAME [--reason TEXT] [--ttl 30m]
            start a super-admin impersonation session (prints its token)
  admin revoke --token TOKEN | admin kill-switch on|off
            end one session, or refuse every session at once
  backup [--out FILE]
            write a consistent copy of the SQLite database (works while serve runs;
            PostgreSQL: use pg_dump)
  healthcheck [--addr HOST:PORT]
            exit 0 when the server on this machine answers /readyz (container health check)
  version   print the version

Configuration comes from the environment; see README.md.
`

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stderr)
	case "migrate":
		return migrate(ctx, args[1:], getenv, stdout, stderr)
	case "workspace":
		return workspaceCommand(ctx, args[1:], getenv, stdout, stderr)
	case "credits":
		return creditsCommand(ctx, args[1:], getenv, stdout, stderr)
	case "admin":
		return adminCommand(ctx, args[1:], getenv, stdout, stderr)
	case "healthcheck":
		return healthcheck(ctx, args[1:], getenv, stdout, stderr)
	case "backup":
		return backupCommand(ctx, args[1:], getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "concierge", version())
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func version() string {
	v := app.Version
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return v
}

// loadConfig reads the environment and applies the command's flags over it.
func loadConfig(name string, args []string, getenv func(string) string, stderr io.Writer) (config.Config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "listen address (overrides CONCIERGE_ADDR)")
	dataDir := fs.String("data-dir", "", "data directory (overrides CONCIERGE_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return config.Config{}, err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return cfg, err
	}
	if *addr != "" {
		cfg.Addr = *addr
	}
	if *dataDir != "" {
		cfg.DataDir = *dataDir
	}
	return cfg, cfg.Validate()
}

func serve(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	start := time.Now()
	cfg, err := loadConfig("serve", args, getenv, stderr)
	if err != nil {
		return err
	}
	log, err := logging.New(stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, app.Options{Logger: log})
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	engine := "sqlite (" + cfg.DataDir + ")"
	if a.DB.Dialect() == store.Postgres {
		engine = "postgres"
	}
	limiter := "memory"
	if cfg.RedisURL != "" {
		limiter = "redis"
	}
	log.Info("concierge ready", "version", version(), "addr", "http://"+ln.Addr().String(), "database", engine,
		"rate_limits", cfg.RateLimits, "rate_limit_store", limiter, "startup_ms", time.Since(start).Milliseconds())
	return a.Serve(ctx, ln)
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := loadConfig("migrate", args, getenv, stderr)
	if err != nil {
		return err
	}
	log, err := logging.New(stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, store.Options{DatabaseURL: cfg.DatabaseURL.Reveal(), SQLitePath: sqlitePath(cfg)})
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := db.Migrate(ctx, log)
	if err != nil {
		return err
	}
	cur, _, err := db.MigrationVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %d migration(s); schema version %d\n", n, cur)
	return nil
}

func sqlitePath(cfg config.Config) string { return app.SQLitePath(cfg) }
