package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/config"
	"concierge/internal/logging"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// The operator commands change one workspace and exit. They open the
// database directly (never app.New): no workers, no listener, so they run
// beside `serve` on the same SQLite file (WAL and a busy timeout let both
// write) or PostgreSQL database.

// workspaceCommand runs `concierge workspace ...` operator commands.
func workspaceCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "set-plan" {
		fmt.Fprint(stderr, usage)
		return errors.New("usage: concierge workspace set-plan --email EMAIL --plan NAME")
	}
	fs, dataDir := operatorFlags("workspace set-plan", stderr)
	email := fs.String("email", "", "e-mail address of the workspace owner")
	plan := fs.String("plan", "", "plan key (free, starter, standard, pro)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *email == "" || *plan == "" {
		return errors.New("workspace set-plan: --email and --plan are required")
	}
	return withBilling(ctx, *dataDir, getenv, stderr, func(svc *billing.Service) error {
		id, err := svc.WorkspaceByEmail(ctx, *email)
		if err != nil {
			return cliError(err)
		}
		if err := svc.SetPlan(ctx, id, *plan); err != nil {
			return cliError(err)
		}
		e, err := svc.Entitlements(ctx, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "workspace %d (%s): plan %s, status %s, balance %d credits\n",
			id, *email, e.Plan, e.Status, e.Usage.CreditsBalance)
		return nil
	})
}

// creditsCommand runs `concierge credits ...` operator commands.
func creditsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "grant" {
		fmt.Fprint(stderr, usage)
		return errors.New("usage: concierge credits grant --email EMAIL --credits N [--reason TEXT]")
	}
	fs, dataDir := operatorFlags("credits grant", stderr)
	email := fs.String("email", "", "e-mail address of the workspace owner")
	credits := fs.String("credits", "", "number of credits to add (a positive integer)")
	reason := fs.String("reason", "granted by an operator", "reason recorded in the ledger")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *email == "" || *credits == "" {
		return errors.New("credits grant: --email and --credits are required")
	}
	n, err := strconv.ParseInt(*credits, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("credits grant: --credits must be a positive integer, got %q", *credits)
	}
	return withBilling(ctx, *dataDir, getenv, stderr, func(svc *billing.Service) error {
		id, err := svc.WorkspaceByEmail(ctx, *email)
		if err != nil {
			return cliError(err)
		}
		// A fresh key each time: running the command twice is a person's
		// explicit decision to grant twice, not a retry to de-duplicate.
		e, err := svc.Grant(ctx, id, n, secret.Token("manual:", 12), *reason)
		if err != nil {
			return cliError(err)
		}
		fmt.Fprintf(stdout, "workspace %d (%s): granted %d credits, balance %d credits\n", id, *email, n, e.BalanceAfter)
		return nil
	})
}

func operatorFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "", "data directory (overrides CONCIERGE_DATA_DIR)")
	return fs, dataDir
}

// withDB opens the configured database for a one-shot command, checks its
// schema is current, and runs fn on it.
func withDB(ctx context.Context, dataDir string, getenv func(string) string, stderr io.Writer,
	fn func(db *store.DB, log *slog.Logger) error) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	if dataDir != "" {
		cfg.DataDir = dataDir
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	log, err := logging.New(stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		// Opening SQLite creates the file; an operator who mistyped the
		// data directory should hear so, not get a fresh empty database.
		if _, err := os.Stat(sqlitePath(cfg)); err != nil {
			return fmt.Errorf("no database at %s: check -data-dir or CONCIERGE_DATA_DIR (or set DATABASE_URL)", sqlitePath(cfg))
		}
	}
	db, err := store.Open(ctx, store.Options{DatabaseURL: cfg.DatabaseURL.Reveal(), SQLitePath: sqlitePath(cfg),
		MaxOpenConns: 2})
	if err != nil {
		return err
	}
	defer db.Close()
	cur, latest, err := db.MigrationVersion(ctx)
	if err != nil {
		return err
	}
	if cur != latest {
		return fmt.Errorf("database schema is at version %d, this build needs %d: run `concierge migrate` (or start `concierge serve`) first", cur, latest)
	}
	return fn(db, log)
}

// withBilling runs fn with a billing service on the configured database.
func withBilling(ctx context.Context, dataDir string, getenv func(string) string, stderr io.Writer,
	fn func(*billing.Service) error) error {
	return withDB(ctx, dataDir, getenv, stderr, func(db *store.DB, log *slog.Logger) error {
		svc, err := billing.NewService(billing.Deps{DB: db, Logger: log})
		if err != nil {
			return err
		}
		return fn(svc)
	})
}

// cliError turns a domain error into the sentence a person at a terminal
// needs, without the wrapping prefixes.
func cliError(err error) error {
	var v *apperr.Validation
	if errors.As(err, &v) && len(v.Fields) > 0 {
		return errors.New(v.Fields[0].Msg)
	}
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Kind != apperr.KindInternal && ae.Message != "" {
		return errors.New(ae.Message)
	}
	return err
}
