package inbox

import (
	"time"
)

// stat is what the watcher knows of a file without reading it.
type stat struct {
	Size    int64
	ModTime time.Time
}

func (s stat) same(o stat) bool { return s.Size == o.Size && s.ModTime.Equal(o.ModTime) }

// stability decides when a file may be read: once its size and mtime have
// not changed for the delay, as the watcher observed them. It is pure (the
// caller gives the clock), so the rule is tested without waiting. The
// file's own mtime is not trusted for "how long ago": a copy that keeps the
// original's mtime (cp -p, an unzip) would look stable while still written.
type stability struct {
	delay time.Duration
	files map[string]observed
}

type observed struct {
	stat  stat
	since time.Time // when the watcher first saw this size and mtime
}

func newStability(delay time.Duration) *stability {
	return &stability{delay: delay, files: map[string]observed{}}
}

// observe records a file's size and mtime as seen at now. The same ones
// again change nothing; others start the delay over.
func (s *stability) observe(path string, st stat, now time.Time) {
	if o, ok := s.files[path]; ok && o.stat.same(st) {
		return
	}
	s.files[path] = observed{stat: st, since: now}
}

// forget stops tracking a file (taken, or gone).
func (s *stability) forget(path string) { delete(s.files, path) }

// tracked reports whether the file waits to become stable.
func (s *stability) tracked(path string) bool {
	_, ok := s.files[path]
	return ok
}

// due returns the files whose size and mtime have been the same for the
// delay at now, with the stat they had, and when the next of the others
// becomes due (zero when none waits). The caller stats each due file once
// more: unchanged, it is taken; changed, observe starts it over.
func (s *stability) due(now time.Time) (ready map[string]stat, next time.Time) {
	for path, o := range s.files {
		at := o.since.Add(s.delay)
		if !now.Before(at) {
			if ready == nil {
				ready = map[string]stat{}
			}
			ready[path] = o.stat
			continue
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return ready, next
}

// waiting is how many files wait to become stable.
func (s *stability) waiting() int { return len(s.files) }
