package mcp

import "time"

// SetProgressEvery sets how often a running call says it still runs, for
// a test; it returns the function that puts it back.
func SetProgressEvery(d time.Duration) (restore func()) {
	old := progressEvery
	progressEvery = d
	return func() { progressEvery = old }
}

// LeadingID is leadingID, for the id a refused body's answer carries.
var LeadingID = leadingID

// MaxHTTPSessions is maxHTTPSessions, the most HTTP sessions that live.
const MaxHTTPSessions = maxHTTPSessions
