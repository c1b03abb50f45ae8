package cli

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams are the standard streams a command reads and writes. Commands take
// them from here, never from os directly, so tests run commands against
// buffers, and terminal checks decide progress bars and prompts in one place.
type IOStreams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	// OutTTY and ErrTTY tell whether stdout and stderr are terminals.
	OutTTY bool
	ErrTTY bool
	// InTTY tells whether a person sits at a terminal to answer questions:
	// stdin and stdout are both terminals. Commands ask (chat's approval
	// questions) only when it is set; tests set it with a reader as In.
	InTTY bool
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		Err:    os.Stderr,
		OutTTY: isTerminal(os.Stdout),
		ErrTTY: isTerminal(os.Stderr),
		InTTY:  isTerminal(os.Stdin) && isTerminal(os.Stdout),
	}
}

// isTerminal reports whether f is a terminal. Being a character device is
// not enough: /dev/null is one too, and `docent chat < /dev/null` must not
// prompt into it.
func isTerminal(f *os.File) bool {
	return f != nil && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
