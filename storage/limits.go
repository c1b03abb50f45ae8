package storage

import "unicode/utf8"

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
