package main

import (
	"context"
	"errors"
	"io"
)

// workspaceCommand runs `concierge workspace ...` operator commands.
func workspaceCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("not implemented yet")
}

// creditsCommand runs `concierge credits ...` operator commands.
func creditsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("not implemented yet")
}
