package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage/envvar"
)

// Limits of the summary (and, with --verbose, of the arguments) shown with
// an approval question; [e]dit shows the arguments in full.
const (
	promptArgsLines   = 40
	promptArgsLineLen = 200
)

// errStopAsking ends the approval questions without a decision: stdin is
// at its end. The turn stays paused and can still be approved.
var errStopAsking = errors.New("no more answers on stdin")

// runEditor opens path in the user's editor ($VISUAL, else $EDITOR, else
// vi) on the process's own terminal and waits for it to exit. A variable so
// that tests can put another editor in its place.
var runEditor = func(ctx context.Context, path string) error {
	editor := strings.TrimSpace(cmp.Or(envvar.Get(envvar.Visual), envvar.Get(envvar.Editor)))
	if editor == "" {
		editor = "vi"
	}
	cmd := editorCommand(editor, path)
	// Not CommandContext: Ctrl-C reaches the editor on its own, and killing
	// an editor that kept the terminal in raw mode would leave it unusable.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("editor %q: %w", editor, err)
	}
	return ctx.Err()
}

// editorCommand runs editor, which may carry its own arguments
// ("code --wait"), on path: through the shell where there is one, as git
// does, so that quoting in $EDITOR works.
func editorCommand(editor, path string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		f := strings.Fields(editor)
		return exec.Command(f[0], append(f[1:], path)...)
	}
	return exec.Command("sh", "-c", editor+` "$@"`, editor, path)
}

// approver asks the person at the terminal about the calls a paused turn
// waits for.
type approver struct {
	ios     *IOStreams
	in      *bufio.Reader
	style   styler
	verbose bool // --verbose: show the arguments as JSON under the summary
	// always are the tools the person chose to always approve in this turn.
	always []string
}

func newApprover(ios *IOStreams, style styler, verbose bool) *approver {
	return &approver{ios: ios, in: bufio.NewReader(ios.In), style: style, verbose: verbose}
}

// decide asks about each call of the batch that needs approval and returns
// the approvals; env names what a call that came without a summary
// changes.
// Calls of a tool already approved with "always" are approved without a
// question. It returns errStopAsking at the end of stdin and the context's
// error on Ctrl-C; nothing is decided then.
func (p *approver) decide(ctx context.Context, calls []agent.ToolCall, needs []string, env *agent.ToolEnv) ([]agent.Approval, error) {
	var pending []agent.ToolCall
	for _, c := range calls {
		if slices.Contains(needs, c.ID) {
			pending = append(pending, c)
		}
	}
	approvals := make([]agent.Approval, 0, len(pending))
	for i, c := range pending {
		if slices.Contains(p.always, c.Name) {
			fmt.Fprintf(p.ios.Err, "approved %s (always, for this turn)\n", textfmt.Visible(c.Name))
			approvals = append(approvals, agent.Approval{CallID: c.ID, Approved: true})
			continue
		}
		counter := ""
		if len(pending) > 1 {
			counter = fmt.Sprintf(", %d of %d", i+1, len(pending))
		}
		p.show(summaryOf(ctx, c, env), c, counter)
		ap, err := p.ask(ctx, c)
		if err != nil {
			return nil, err
		}
		approvals = append(approvals, ap)
	}
	return approvals, nil
}

// show writes what a call will do: its summary's title (in bold, red for a
// delete), which call it is, the summary's lines, and with --verbose the
// arguments as JSON. What the model wrote goes through textfmt.Visible.
func (p *approver) show(s agent.Summary, c agent.ToolCall, counter string) {
	title := p.style.bold(textfmt.Visible(s.Title))
	if s.Danger {
		title = p.style.boldRed(textfmt.Visible(s.Title))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s %s\n", title, p.style.dim(fmt.Sprintf("(%s, call %s%s)", textfmt.Visible(c.Name), textfmt.Visible(c.ID), counter)))
	lines := s.Lines
	var why struct {
		Reason string `json:"reason"`
	}
	if _ = json.Unmarshal(c.Arguments, &why); strings.TrimSpace(why.Reason) != "" {
		lines = append(slices.Clip(lines), "Reason: "+strings.TrimSpace(why.Reason)) // update_extraction_field says why for this question
	}
	for i, l := range lines {
		if i == promptArgsLines && len(lines) > promptArgsLines+1 {
			fmt.Fprintf(&b, "  … %d more lines ([e]dit shows the arguments)\n", len(lines)-i)
			break
		}
		b.WriteString("  " + p.diffColour(textfmt.Visible(textfmt.Shorten(l, promptArgsLineLen))) + "\n")
	}
	if p.verbose {
		fmt.Fprintf(&b, "%s\n%s\n", p.style.dim("arguments:"), textfmt.VisibleLines(prettyArgs(c.Arguments, promptArgsLines, promptArgsLineLen)))
	}
	fmt.Fprint(p.ios.Err, b.String())
}

// diffColour colours a diff line of a summary: added green, removed red,
// changed yellow.
func (p *approver) diffColour(l string) string {
	switch {
	case strings.HasPrefix(l, "  + "):
		return p.style.green(l)
	case strings.HasPrefix(l, "  - "):
		return p.style.red(l)
	case strings.HasPrefix(l, "  ~ "):
		return p.style.yellow(l)
	}
	return l
}

// question is the approval question about a call, its action letters in
// colour on a terminal.
func (p *approver) question(tool string) string {
	k := func(code, letter string) string { return p.style.wrap(code, letter) }
	return fmt.Sprintf("[%s]pprove, [%s]eject, a[%s]ways approve %s, [%s]dit arguments? ",
		k("1;32", "a"), k("1;31", "r"), k("1;33", "l"), tool, k("1;36", "e"))
}

// ask asks about one call until it gets a decision.
func (p *approver) ask(ctx context.Context, c agent.ToolCall) (agent.Approval, error) {
	text := prettyArgs(c.Arguments, 0, 0) // what the editor starts from
	for {
		fmt.Fprint(p.ios.Err, p.question(c.Name))
		line, err := p.readLine(ctx)
		if err != nil {
			fmt.Fprintln(p.ios.Err)
			return agent.Approval{}, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "a", "approve", "y", "yes":
			return agent.Approval{CallID: c.ID, Approved: true}, nil
		case "r", "reject", "n", "no":
			return agent.Approval{CallID: c.ID, Approved: false}, nil
		case "l", "always":
			if !slices.Contains(p.always, c.Name) {
				p.always = append(p.always, c.Name)
			}
			return agent.Approval{CallID: c.ID, Approved: true}, nil
		case "e", "edit":
			args, edited, err := p.edit(ctx, text)
			text = edited
			if err != nil {
				if ctx.Err() != nil {
					return agent.Approval{}, ctx.Err()
				}
				fmt.Fprintf(p.ios.Err, "%v\n", err)
				continue
			}
			fmt.Fprintf(p.ios.Err, "approved %s with the edited arguments %s\n", textfmt.Visible(c.Name), textfmt.Visible(compactArgs(args)))
			return agent.Approval{CallID: c.ID, Approved: true, Arguments: args}, nil
		default:
			fmt.Fprintln(p.ios.Err, "answer a, r, l or e")
		}
	}
}

// edit lets the person edit text in their editor and returns it as
// compact JSON arguments, and the edited text to start from next time.
func (p *approver) edit(ctx context.Context, text string) (json.RawMessage, string, error) {
	f, err := os.CreateTemp("", "docent-arguments-*.json")
	if err != nil {
		return nil, text, fmt.Errorf("edit the arguments: %w", err)
	}
	path := f.Name()
	defer os.Remove(path)
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, text, fmt.Errorf("edit the arguments: %w", err)
	}
	if err := runEditor(ctx, path); err != nil {
		return nil, text, fmt.Errorf("edit the arguments: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, text, fmt.Errorf("edit the arguments: %w", err)
	}
	edited := string(b)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		msg := "they are not a JSON object"
		if err != nil {
			msg = "they are not valid JSON: " + err.Error()
		}
		return nil, edited, fmt.Errorf("the edited arguments are refused, %s; edit again or answer r to reject", msg)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		return nil, edited, err
	}
	return json.RawMessage(compact.Bytes()), edited, nil
}

// readLine reads one answer. The read runs aside so that Ctrl-C (the
// context) ends the wait even though a read from a terminal cannot be
// interrupted; nothing reads stdin after that.
func (p *approver) readLine(ctx context.Context) (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := p.in.ReadString('\n')
		ch <- result{line, err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-ch:
		switch {
		case r.err == nil:
			return r.line, nil
		case errors.Is(r.err, io.EOF) && strings.TrimSpace(r.line) != "":
			return r.line, nil // a last answer without its newline
		case errors.Is(r.err, io.EOF):
			return "", errStopAsking
		default:
			return "", fmt.Errorf("read the answer from stdin: %w", r.err)
		}
	}
}

// prettyArgs renders a call's arguments indented for people. With limits,
// lines longer than lineLen and lines beyond maxLines are cut with a
// marker; 0 means no limit.
func prettyArgs(raw json.RawMessage, maxLines, lineLen int) string {
	var buf bytes.Buffer
	var s string
	if len(bytes.TrimSpace(raw)) == 0 {
		s = "{}"
	} else if err := json.Indent(&buf, raw, "", "  "); err != nil {
		s = string(raw)
	} else {
		s = buf.String()
	}
	if maxLines <= 0 && lineLen <= 0 {
		return s + "\n"
	}
	lines := strings.Split(s, "\n")
	var out strings.Builder
	for i, l := range lines {
		if maxLines > 0 && i == maxLines && len(lines) > maxLines+1 {
			fmt.Fprintf(&out, "  … %d more lines ([e]dit shows them all)\n", len(lines)-maxLines)
			break
		}
		if lineLen > 0 {
			l = textfmt.Shorten(l, lineLen)
		}
		out.WriteString(l)
		out.WriteByte('\n')
	}
	return strings.TrimSuffix(out.String(), "\n")
}
