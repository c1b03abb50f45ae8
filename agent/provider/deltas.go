package provider

import (
	"errors"
	"strings"
)

// deltas gathers one attempt's streamed thinking and text, separating
// <think> tags out of the text, and passes each delta on to the caller.
// Both providers stream through it, so they agree on what counts as having
// reached the caller, after which a failed call is not retried.
type deltas struct {
	onDelta        func(Delta) error
	split          thinkSplitter
	text, thinking strings.Builder
	chars          int  // characters received, for "stopped after N characters"
	streamed       bool // something reached onDelta
}

// add records thinking and text and passes them on. An error from the
// caller comes back as a *callbackError, so that it is told apart from the
// client's own errors; callerError unwraps it again.
func (d *deltas) add(th, tx string) error {
	d.thinking.WriteString(th)
	d.text.WriteString(tx)
	d.chars += len(th) + len(tx)
	for _, delta := range [2]Delta{{Thinking: th}, {Text: tx}} {
		if delta == (Delta{}) || d.onDelta == nil {
			continue
		}
		d.streamed = true
		if err := d.onDelta(delta); err != nil {
			return &callbackError{err}
		}
	}
	return nil
}

// content passes on answer text, which may hold <think> tags.
func (d *deltas) content(s string) error {
	if s == "" {
		return nil
	}
	return d.add(d.split.Feed(s))
}

// flush passes on what the tag splitter held back at the end of the stream.
func (d *deltas) flush() error { return d.add(d.split.Flush()) }

// fill copies what was gathered into the attempt's result.
func (d *deltas) fill(res *attemptResult) {
	res.Text, res.Thinking, res.streamed = d.text.String(), d.thinking.String(), d.streamed
}

// callerError returns the caller's own error unchanged when err came from
// onDelta, and err otherwise.
func callerError(err error) error {
	var cb *callbackError
	if errors.As(err, &cb) {
		return cb.err
	}
	return err
}
