package agent

import (
	"context"
	"time"
)

// DefaultSweepInterval is how often a long-running process deletes expired
// and used turn states.
const DefaultSweepInterval = time.Minute

// SweepTurns deletes expired and used turn states now and then every
// interval until ctx ends, so a paused turn nobody approves does not stay in
// the database. What is expired is told by the store's clock (DB.Now), the
// one that set each state's expiry. `--serve` and the desktop run it beside the server; a CLI
// command sweeps once.
func (a *Agent) SweepTurns(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if n, err := a.DB.SweepTurnStates(ctx); err != nil && ctx.Err() == nil {
			a.logger().WarnContext(ctx, "sweep turn states", "err", err)
		} else if n > 0 {
			a.logger().DebugContext(ctx, "swept turn states", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
