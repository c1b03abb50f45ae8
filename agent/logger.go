package agent

import "log/slog"

// The agent logs to the logger the composition root gives it (Agent.Logger,
// Extractor.Logger), so that a process's log settings reach it and a test
// can read what it logged; slog.Default() stands in when none is given.

func (a *Agent) logger() *slog.Logger { return loggerOr(a.Logger) }

func (x *Extractor) logger() *slog.Logger { return loggerOr(x.Logger) }

func loggerOr(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.Default()
}
