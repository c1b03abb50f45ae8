// Command docent turns documents into structured data with an AI agent, on
// the user's own machine: a desktop app, a web server for the LAN (--serve),
// and a command line for batch work.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/docent/docent/app"
)

func main() {
	// The PDF reader runs hostile input in a child process of this same
	// binary. That child never gets here: app/pdftext's init turns the
	// process into the reader before main runs (see app/pdftext/child.go).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Run(ctx, os.Args[1:], app.System())
	stop()
	os.Exit(code)
}
