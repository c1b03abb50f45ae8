//go:build !unix

package desktop

// LockDataDir does nothing on systems without flock: two windows may open
// the same data directory there.
func LockDataDir(dir string) (release func(), err error) { return func() {}, nil }
