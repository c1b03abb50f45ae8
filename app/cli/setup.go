package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/docent/docent/agent"
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

// printFirstRunHint runs as `docent --serve` and the desktop window
// start: with no default model set but a usable one found (a pulled Ollama
// model that takes tools), it makes that the default, so a new user's
// first chat works without opening Settings, and says so; otherwise, when
// no usable model is set, it prints one line on stderr ("No model yet:
// ..."). It prints nothing when a model is set, or when the providers did
// not answer in time.
func printFirstRunHint(ctx context.Context, env *Env, live *settings.Live) {
	ctx, cancel := context.WithTimeout(ctx, hintTimeout)
	defer cancel()
	st, err := live.Status(ctx)
	if err != nil || ctx.Err() != nil {
		env.Logger.Debug("first-run check skipped", "err", err, "ctx", ctx.Err())
		return
	}
	if model, ok := adoptRecommended(ctx, live, st); ok {
		fmt.Fprintf(env.IO.Err, "Using %s, the model in Ollama that can use tools, as the default model (change it in Settings).\n", model)
		return
	}
	if hint := st.Hint(); hint != "" {
		fmt.Fprintln(env.IO.Err, hint)
	}
}

// adoptRecommended saves the model recommended for the agent as the
// default model when none is set (not by a flag, the environment or
// Settings), and reports which it chose.
func adoptRecommended(ctx context.Context, live *settings.Live, st settings.Status) (string, bool) {
	model := st.Recommended.Agent
	if st.DefaultModel != "" || model == "" {
		return "", false
	}
	if _, err := live.Put(ctx, settings.Patch{DefaultModel: &model}); err != nil {
		return "", false
	}
	return model, true
}

// Agent returns the agent a command that needs a model runs: the one on
// the provider settings in effect (Settings), with the recommended model
// adopted as the default when none is set (agentWithModel).
func (e *Env) Agent(ctx context.Context) (*agent.Agent, error) {
	if err := agentWithModel(ctx, e); err != nil {
		return nil, err
	}
	live, err := e.Settings(ctx)
	if err != nil {
		return nil, err
	}
	return live.Agent(), nil
}

// agentWithModel is the agent a command that needs a model runs; when no
// default model is set at all, it first adopts the recommended one (as
// --serve does) so that `docent chat` works on a machine with Ollama and a
// model pulled, and says so on stderr.
func agentWithModel(ctx context.Context, env *Env) error {
	live, err := env.Settings(ctx)
	if err != nil {
		return err
	}
	if live.Agent().DefaultModel != "" || env.Model != "" {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, hintTimeout)
	defer cancel()
	st, err := live.Status(cctx)
	if err != nil {
		return nil // the command says what is missing when it needs it
	}
	if model, ok := adoptRecommended(cctx, live, st); ok {
		fmt.Fprintf(env.IO.Err, "Using %s, the model in Ollama that can use tools, as the default model (change it in Settings or with --model).\n", model)
	}
	return nil
}
