// Command docent turns documents into structured data with an AI agent, on
// the user's own machine: a desktop app, a web server for the LAN (--serve),
// and a command line for batch work.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/docent/docent/app/cli"
	"github.com/docent/docent/app/ingest/pdftext"
)

func main() {
	// The PDF reader runs hostile input in a child process of this same
	// binary: started as one, this process reads one PDF and exits here.
	pdftext.RunChildIfRequested()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.System())
	stop()
	os.Exit(code)
}
