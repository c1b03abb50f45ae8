package inbox

import "time"

// SetGoneRecheck makes a test look for a vanished folder more often.
func SetGoneRecheck(d time.Duration) (restore func()) {
	old := goneRecheck
	goneRecheck = d
	return func() { goneRecheck = old }
}
