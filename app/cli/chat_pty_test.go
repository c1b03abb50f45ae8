//go:build linux

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/docent/docent/agent/modeltest"
)

// The approval question of `docent chat` on a real terminal: a pseudo-
// terminal made with the kernel's own calls (no module for it), whose
// streams the command checks with isTerminal as it checks the process's.

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// openPTY opens a pseudo-terminal: the side a terminal emulator holds and
// the terminal the command uses. Echo and output processing are off, so
// the screen holds exactly what the command wrote.
func openPTY(t *testing.T) (screen, tty *os.File) {
	t.Helper()
	screen, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	var n uint32
	if err := ioctl(screen, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatal(err)
	}
	if err := ioctl(screen, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		screen.Close()
		t.Skipf("open the terminal: %v", err)
	}
	var tio syscall.Termios
	if err := ioctl(tty, syscall.TCGETS, unsafe.Pointer(&tio)); err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= syscall.ECHO
	tio.Oflag &^= syscall.OPOST
	if err := ioctl(tty, syscall.TCSETS, unsafe.Pointer(&tio)); err != nil {
		t.Fatal(err)
	}
	return screen, tty
}

// onTerminal runs `docent chat DOC "please act" args...` with stdin,
// stdout and stderr on a terminal where the person has typed input ahead
// (the terminal holds it until the command reads it: nothing waits on
// time), and returns the exit status and the screen.
func (c *interactiveChat) onTerminal(input string, args ...string) (int, string) {
	c.t.Helper()
	screen, tty := openPTY(c.t)
	defer screen.Close()
	ios := &IOStreams{In: tty, Out: tty, Err: tty, OutTTY: isTerminal(tty), ErrTTY: isTerminal(tty), InTTY: isTerminal(tty) && isTerminal(tty)}
	if !ios.InTTY || !ios.ErrTTY {
		tty.Close()
		c.t.Fatal("isTerminal does not take the pseudo-terminal for a terminal")
	}
	shown := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(screen) // ends (EIO) once the terminal is closed
		shown <- string(b)
	}()
	// Then Ctrl-D: a question the test did not expect meets the end of
	// input instead of waiting for ever.
	if _, err := screen.WriteString(input + "\x04"); err != nil {
		c.t.Fatal(err)
	}
	code := Run(context.Background(), append([]string{"--data-dir", c.data, "chat", interactiveDoc, "please act"}, args...), ios)
	tty.Close()
	return code, <-shown
}

// withSchemaUpdate has the store hold schema invoice v1 and the model
// propose its next version: total may be empty, due_date is new.
func withSchemaUpdate(t *testing.T) *interactiveChat {
	c := newInteractiveChat(t)
	file := filepath.Join(t.TempDir(), "invoice.json")
	if err := os.WriteFile(file, []byte(invoiceSchemaJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := docent(t, c.data, "schemas", "create", "--name", "invoice", "--file", file); code != ExitOK {
		t.Fatalf("schemas create: exit %d %s %s", code, out, errOut)
	}
	next := `{"type":"object","properties":{"invoice_number":{"type":"string"},"total":{"type":["number","null"]},` +
		`"due_date":{"type":"string","format":"date"}},"required":["invoice_number","total","due_date"],"additionalProperties":false}`
	c.srv.Enqueue(
		modeltest.Reply{Text: "I will add the due date.", ToolCalls: []modeltest.ToolCall{{
			ID: "u1", Name: "update_schema", Arguments: `{"schema_id":"invoice","response_format":` + next + `}`,
		}}},
		modeltest.Reply{Text: "The schema has a due date now."},
	)
	return c
}

func (c *interactiveChat) schemaVersion() int {
	c.t.Helper()
	s, err := c.db().FindSchema(context.Background(), "invoice")
	if err != nil {
		c.t.Fatal(err)
	}
	return s.Version
}

func TestChatApprovalOnATerminalShowsTheChangeInColour(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	c := withSchemaUpdate(t)
	code, screen := c.onTerminal("a\n")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, screen)
	}
	for _, want := range []string{
		// The title in bold, the diff against v1 as the store holds it,
		// in colour.
		"\033[1mUpdate schema “invoice” to v2\033[0m \033[2m(update_schema, call u1)\033[0m\n",
		"  Field changes against v1:\n      invoice_number: string, required\n",
		"  \033[33m  ~ total: type number → number or null\033[0m\n",
		"  \033[32m  + due_date: date, required\033[0m\n",
		"  1 field added, 1 field changed.\n",
		// The action letters stand out.
		"[\033[1;32ma\033[0m]pprove, [\033[1;31mr\033[0m]eject, a[\033[1;33ml\033[0m]ways approve update_schema, [\033[1;36me\033[0m]dit arguments? ",
		"✓\033[0m update_schema: updated schema invoice to v2",
		"The schema has a due date now.\n",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, `"response_format"`) || strings.Contains(screen, `"schema_id"`) {
		t.Errorf("the screen shows the arguments as JSON:\n%s", screen)
	}
	if v := c.schemaVersion(); v != 2 {
		t.Errorf("schema at v%d after approval", v)
	}
}

func TestChatApprovalOnATerminalVerboseShowsTheJSON(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	c := withSchemaUpdate(t)
	code, screen := c.onTerminal("r\n", "--verbose")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, screen)
	}
	for _, want := range []string{
		"\nUpdate schema “invoice” to v2 (update_schema, call u1)\n  Field changes against v1:\n",
		"    + due_date: date, required\n",
		// --verbose: the arguments as JSON under the summary, as before.
		"arguments:\n{\n  \"schema_id\": \"invoice\",\n  \"response_format\": {\n",
		"[a]pprove, [r]eject, a[l]ways approve update_schema, [e]dit arguments? ",
		"→ update_schema \"invoice\" (3 fields)\n  {\"schema_id\":\"invoice\",\"response_format\":{",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "\033[") {
		t.Errorf("colour despite NO_COLOR:\n%q", screen)
	}
	if v := c.schemaVersion(); v != 1 {
		t.Errorf("a rejected update made v%d", v)
	}
}
