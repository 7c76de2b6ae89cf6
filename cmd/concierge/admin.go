package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"concierge/internal/impersonation"
	"concierge/internal/store"
)

// adminCommand runs the super-admin commands: impersonation sessions and
// their kill switch. They are a command, not an HTTP endpoint, so nothing
// on the network can mint a session.
func adminCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("usage: concierge admin impersonate, revoke or kill-switch")
	}
	switch args[0] {
	case "impersonate":
		fs, dataDir := operatorFlags("admin impersonate", stderr)
		email := fs.String("email", "", "e-mail address of the workspace owner")
		admin := fs.String("admin", "", "who is impersonating (recorded with every use)")
		reason := fs.String("reason", "", "why (a ticket number)")
		ttl := fs.Duration("ttl", 30*time.Minute, "how long the session lasts (at most 2h)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *email == "" || *admin == "" {
			return errors.New("admin impersonate: --email and --admin are required")
		}
		return withDB(ctx, *dataDir, getenv, stderr, func(db *store.DB, _ *slog.Logger) error {
			token, sess, err := impersonation.NewService(db, nil).Issue(ctx, *email, *admin, *reason, *ttl)
			if err != nil {
				return cliError(err)
			}
			fmt.Fprintf(stdout, "%s\n(workspace %d, expires %s; send as X-Impersonation-Token with the workspace key)\n",
				token, sess.WorkspaceID, sess.ExpiresAt.Format(time.RFC3339))
			return nil
		})
	case "revoke":
		fs, dataDir := operatorFlags("admin revoke", stderr)
		token := fs.String("token", "", "the session token to end")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return withDB(ctx, *dataDir, getenv, stderr, func(db *store.DB, _ *slog.Logger) error {
			if err := impersonation.NewService(db, nil).Revoke(ctx, *token); err != nil {
				return cliError(err)
			}
			fmt.Fprintln(stdout, "session revoked")
			return nil
		})
	case "kill-switch":
		fs, dataDir := operatorFlags("admin kill-switch", stderr)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		state := fs.Arg(0)
		if state != "on" && state != "off" {
			return errors.New("usage: concierge admin kill-switch on|off (on refuses every impersonation session)")
		}
		return withDB(ctx, *dataDir, getenv, stderr, func(db *store.DB, _ *slog.Logger) error {
			if err := impersonation.NewService(db, nil).SetKillSwitch(ctx, state == "on"); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "impersonation kill switch %s\n", state)
			return nil
		})
	}
	return fmt.Errorf("unknown admin command %q", args[0])
}
