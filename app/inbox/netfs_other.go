//go:build !linux

package inbox

// networkFS reports whether dir is on a network filesystem. Off Linux it
// is not detected: set Settings.Poll to always for a network share there
// (notification failing still falls back to polling).
func networkFS(dir string) bool { return false }
