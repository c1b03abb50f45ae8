package storage

import (
	"strconv"
	"unicode/utf8"
)

// Length limits of the short texts that name and describe things, counted
// in characters after surrounding space is trimmed. They keep a name
// something a list, a tab or a CSV column can show.
const (
	// MaxNameLength bounds a name people give: of a tag, a schema, a
	// prompt.
	MaxNameLength = 100
	// MaxDescriptionLength bounds a tag's description.
	MaxDescriptionLength = 1000
	// MaxTitleLength bounds a thread's title.
	MaxTitleLength = 200
)

// checkLength is invalid when s is longer than limit characters; what says
// which text it is ("tag name"), field which request member holds it
// ("name", see fault.Error.Field).
func checkLength(what, field, s string, limit int) error {
	if n := utf8.RuneCountInString(s); n > limit {
		return Errorf(ErrInvalid, "%s is %d characters long: at most %d are allowed", what, n, limit).On(field)
	}
	return nil
}

// MaxMessageBytes bounds a message stored with a document (its error, its
// auto-create error): 4 KiB, a long paragraph. Whatever writes it (an OCR
// engine's stderr, a reader's crash report, a model server's answer) is
// cut to this size here, so that no writer can make a document, and every
// list that shows it, megabytes long.
const MaxMessageBytes = 4 << 10

// CapMessage returns message cut to MaxMessageBytes: its beginning, which
// says what failed, and its end, where a program's output puts the cause,
// with a note of how much was left out between them. Cuts fall between
// characters, so the result is valid UTF-8 when message is.
func CapMessage(message string) string {
	if len(message) <= MaxMessageBytes {
		return message
	}
	const tailBytes = 1 << 10
	headEnd := MaxMessageBytes - tailBytes - 64 // room for the note
	for headEnd > 0 && !utf8.RuneStart(message[headEnd]) {
		headEnd--
	}
	tailStart := len(message) - tailBytes
	for tailStart < len(message) && !utf8.RuneStart(message[tailStart]) {
		tailStart++
	}
	return message[:headEnd] + " … (" + strconv.Itoa(tailStart-headEnd) + " bytes left out) … " + message[tailStart:]
}
