package app

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/docent/docent/app/settings"
)

// First-run setup on the command line: what `docent models` prints when no
// usable model is set, and the line `docent --serve` and the desktop print
// at start. The state itself (is Ollama there, which model to use, what to
// do next) is worked out once, in settings.Inspect, for the CLI, GET
// /api/setup and the UI alike.

// printGuidance writes, for a person, why no usable model is set and the
// next steps, numbered; with a usable one, only the notes (a default that
// cannot call tools). Nothing when there is nothing to say.
func printGuidance(w io.Writer, st settings.Status) {
	if st.Usable {
		for _, s := range st.NextSteps {
			fmt.Fprintf(w, "note: %s\n", s.Text)
		}
		return
	}
	fmt.Fprintln(w, st.Hint())
	if len(st.NextSteps) == 0 {
		return
	}
	fmt.Fprintln(w, "Next steps:")
	for i, s := range st.NextSteps {
		fmt.Fprintf(w, "  %d. %s\n", i+1, s.Text)
	}
}

// hintTimeout bounds the check at start: a server that is slow to answer
// delays nothing beyond it, and then nothing is printed (the Settings page
// shows the state).
const hintTimeout = 3 * time.Second

// printFirstRunHint prints one line on stderr when no usable model is set,
// as `docent --serve` and the desktop window start ("No model yet: ...").
// It prints nothing when one is, or when the providers did not answer in
// time.
func printFirstRunHint(ctx context.Context, env *Env, live *settings.Live) {
	ctx, cancel := context.WithTimeout(ctx, hintTimeout)
	defer cancel()
	st, err := live.Status(ctx)
	if err != nil || ctx.Err() != nil {
		env.Logger.Debug("first-run check skipped", "err", err, "ctx", ctx.Err())
		return
	}
	if hint := st.Hint(); hint != "" {
		fmt.Fprintln(env.IO.Err, hint)
	}
}
