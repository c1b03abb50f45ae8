package prices

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// matcher is the list's match logic for a model or provider id: one of
// equals, starts_with, ends_with, contains (all case-insensitive, as the
// list's own library compares), regex (case-sensitive), and, or.
type matcher struct {
	op    string
	value string // lower-cased, except for regex
	re    *regexp.Regexp
	// notRe is a leading negative lookahead, ^(?!X)Y, which RE2 lacks: the
	// id matches when notRe (^X) does not and re (^Y) does.
	notRe *regexp.Regexp
	subs  []matcher
}

func parseMatcher(raw json.RawMessage) (matcher, error) {
	var clause map[string]json.RawMessage
	if err := json.Unmarshal(raw, &clause); err != nil {
		return matcher{}, fmt.Errorf("match: %w", err)
	}
	if len(clause) != 1 {
		return matcher{}, fmt.Errorf("match: want one operator, got %d", len(clause))
	}
	for op, arg := range clause {
		switch op {
		case "and", "or":
			var parts []json.RawMessage
			if err := json.Unmarshal(arg, &parts); err != nil {
				return matcher{}, fmt.Errorf("match %s: %w", op, err)
			}
			m := matcher{op: op}
			for _, part := range parts {
				sub, err := parseMatcher(part)
				if err != nil {
					return matcher{}, err
				}
				m.subs = append(m.subs, sub)
			}
			return m, nil
		case "equals", "starts_with", "ends_with", "contains", "regex":
			var s string
			if err := json.Unmarshal(arg, &s); err != nil {
				return matcher{}, fmt.Errorf("match %s: %w", op, err)
			}
			if op != "regex" {
				return matcher{op: op, value: strings.ToLower(s)}, nil
			}
			return parseRegex(s)
		default:
			return matcher{}, fmt.Errorf("match: unknown operator %q", op)
		}
	}
	return matcher{}, fmt.Errorf("match: no operator")
}

// parseRegex compiles a JavaScript pattern with RE2. The list uses one
// construct RE2 lacks, a negative lookahead at the start
// ("^(?![^/]+/)mistral…", "^(?!.*-tts(?:$|-))"), which is split off and
// checked apart; any other pattern RE2 cannot compile is an error.
func parseRegex(pattern string) (matcher, error) {
	m := matcher{op: "regex", value: pattern}
	rest := pattern
	if body, after, ok := leadingLookahead(pattern); ok {
		not, err := regexp.Compile("^" + body)
		if err != nil {
			return matcher{}, fmt.Errorf("match regex %q: %w", pattern, err)
		}
		m.notRe, rest = not, "^"+after
	}
	re, err := regexp.Compile(rest)
	if err != nil {
		return matcher{}, fmt.Errorf("match regex %q: %w", pattern, err)
	}
	m.re = re
	return m, nil
}

// leadingLookahead splits "^(?!X)Y" into X and Y.
func leadingLookahead(pattern string) (body, after string, ok bool) {
	const open = "^(?!"
	if !strings.HasPrefix(pattern, open) {
		return "", "", false
	}
	depth, inClass := 1, false
	for i := len(open); i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return pattern[len(open):i], pattern[i+1:], true
			}
		}
	}
	return "", "", false
}

func (m matcher) matches(id string) bool {
	lower := strings.ToLower(id)
	switch m.op {
	case "and":
		for _, s := range m.subs {
			if !s.matches(id) {
				return false
			}
		}
		return true
	case "or":
		for _, s := range m.subs {
			if s.matches(id) {
				return true
			}
		}
		return false
	case "equals":
		return lower == m.value
	case "starts_with":
		return strings.HasPrefix(lower, m.value)
	case "ends_with":
		return strings.HasSuffix(lower, m.value)
	case "contains":
		return strings.Contains(lower, m.value)
	case "regex":
		return (m.notRe == nil || !m.notRe.MatchString(id)) && m.re.MatchString(id)
	}
	return false
}
