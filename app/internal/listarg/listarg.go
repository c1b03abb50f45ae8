// Package listarg reads a list argument the way the command line and the
// HTTP API both take one: repeated values (--tag a --tag b, ?tag_id=a&tag_id=b),
// comma-separated ones (--tag a,b), or both.
package listarg

import "strings"

// Split returns the items of values, each value split at commas, spaces
// around an item trimmed and empty items dropped.
func Split(values []string) []string {
	var out []string
	for _, v := range values {
		for s := range strings.SplitSeq(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
