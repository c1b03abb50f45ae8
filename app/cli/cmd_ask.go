package cli

import (
	"context"
	"flag"

	"github.com/docent/docent/agent"
)

// runAsk is `docent ask`: a turn of Ask Docent, a conversation about the
// whole library (agent.Ask). Its answer streams as chat's does and ends
// with the footnotes of what it cites; with --json only the result object
// is printed.
func runAsk(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	threadID := fs.String("thread", "", "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("ask needs one question (quote it)\n%s", usageLine("ask"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	a, err := env.Agent(ctx)
	if err != nil {
		return err
	}
	// The agent checks the question (empty, too long) and the model before
	// anything is stored, as it does for every edge.
	req := agent.AskRequest{ThreadID: *threadID, Message: rest[0], Model: env.Model}
	if *asJSON {
		res, err := a.Ask(ctx, req, nil)
		if err != nil {
			return err
		}
		return writeJSON(env.IO, res)
	}
	out := newTurnPrinter(ctx, env, db, "", false, false)
	out.ask = true
	res, err := a.Ask(ctx, req, out)
	return out.finish(res, err)
}
