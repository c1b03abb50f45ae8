package pdftext

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// faultEnv makes a child started by this test binary misbehave instead of
// reading: "alloc" allocates without end, "hang" never answers. It lives in
// the tests alone, so the shipped binary has no such switch; the parent
// passes it on because the child inherits the environment.
const faultEnv = "PDFTEXT_TEST_FAULT"

// TestMain lets this test binary serve as the PDF reader child, as main
// does for docent, and as a faulty one when a test asks for it.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		switch os.Getenv(faultEnv) {
		case "alloc":
			applyChildLimits()
			var hold [][]byte
			for {
				b := make([]byte, 16<<20)
				for i := range b {
					b[i] = 1
				}
				hold = append(hold, b)
			}
		case "hang":
			time.Sleep(time.Hour)
		}
	}
	RunChildIfRequested()
	code := m.Run()
	// Every reader child is either idle in the pool or gone: none may be
	// left behind by a request, whatever became of it.
	readers.closeIdle()
	for deadline := time.Now().Add(10 * time.Second); liveChildren.Load() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "%d reader children still alive after the tests and the pool's close\n", liveChildren.Load())
			code = 1
			break
		}
	}
	os.Exit(code)
}
