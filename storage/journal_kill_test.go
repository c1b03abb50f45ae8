package storage

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// undoChildEnv names the database a re-executed test binary undoes a turn
// of (TestUndoKilledMidway).
const undoChildEnv = "DOCENT_TEST_UNDO_CHILD_DB"

// A process killed (SIGKILL) in the middle of undoing a turn of 40 changes
// leaves the store as it was before the undo: one transaction, all or
// none. The undo runs in a child process, the test binary run again, which
// says how far it got and then waits to be killed.
func TestUndoKilledMidway(t *testing.T) {
	if path := os.Getenv(undoChildEnv); path != "" {
		undoChild(path)
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "docent.db")
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	turn := WithActor(ctx, Actor{Edge: EdgeAgent, Name: "thr_k", TurnID: "turn_kill"})
	var docs []string
	for i := range 40 {
		d, err := db.CreateDocument(ctx, NewDocument{Name: fmt.Sprintf("r%02d.txt", i), MediaType: "text/plain",
			Data: []byte(fmt.Sprint("receipt ", i)), Pages: []string{"total"}})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d.ID)
		if _, err := db.CreateExtraction(turn, NewExtraction{DocumentID: d.ID, Value: json.RawMessage(`{"total":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestUndoKilledMidway$")
	cmd.Env = append(os.Environ(), undoChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if sc.Text() == "undone 20" {
			break
		}
	}
	if len(seen) == 0 || seen[len(seen)-1] != "undone 20" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child never got halfway; it said %q", seen)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open after the kill: %v", err)
	}
	defer db.Close()
	checkIntegrity(t, db)
	if n := count(t, db, "extractions", ""); n != 40 {
		t.Fatalf("%d extractions after the killed undo, want all 40", n)
	}
	if n := count(t, db, "journal", "undoes IS NOT NULL OR undone_by IS NOT NULL"); n != 0 {
		t.Fatalf("%d undo links after the killed undo, want none", n)
	}
	res, err := db.UndoTurn(ctx, "turn_kill", false)
	if err != nil || len(res.Undone) != 40 {
		t.Fatalf("undo after the kill: %d undone, %v", len(res.Undone), err)
	}
	if n := count(t, db, "extractions", ""); n != 0 {
		t.Fatalf("%d extractions after the undo", n)
	}
	checkIntegrity(t, db)
}

// undoChild undoes the turn, saying on stdout how many entries it has
// undone, and stops for good after 20, inside the transaction.
func undoChild(path string) {
	db, err := Open(context.Background(), path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	undoStepHook = func(done int) {
		fmt.Printf("undone %d\n", done)
		if done == 20 {
			time.Sleep(time.Hour) // inside the transaction, until the test kills the process

		}
	}
	_, err = db.UndoTurn(context.Background(), "turn_kill", false)
	fmt.Println("finished:", strings.TrimSpace(fmt.Sprint(err)))
	os.Exit(3)
}
