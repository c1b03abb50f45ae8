package app

import (
	"context"

	"github.com/docent/docent/app/desktop"
)

func runDesktop(ctx context.Context, env *Env) error {
	handler, err := newServer(ctx, env)
	if err != nil {
		return err
	}
	return desktop.Run(ctx, desktop.Options{Title: "Docent", Handler: handler, Logger: env.Logger})
}
