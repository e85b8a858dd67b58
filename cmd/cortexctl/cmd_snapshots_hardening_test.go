package main

import (
	"context"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
)

// TestBoardReadCommands_ReadOnly: the read commands of the task board,
// mailbox, plans and snapshots — a restore without --apply among them, a
// dry run — open the store read-only: they run beside another reader and
// leave the store's directory as it was. (Not a TestCLI_ test: a server
// would hold the store read-write.)
func TestBoardReadCommands_ReadOnly(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "one")
	mustCLI(t, dir, "mail", "send", "crew", "hi", "--as", "bob", "--to", "ann")
	mustCLI(t, dir, "plans", "draft", "crew", "--by", "ann", "--title", "t", "--step", "s")
	mustCLI(t, dir, "teams", "snapshot", "create", "crew")
	mustCLI(t, dir, "tasks", "create", "crew", "two") // the restore would change something
	reader, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	before := dirState(t, dir)
	for _, args := range [][]string{
		{"tasks", "list", "crew"}, {"tasks", "get", "crew", "T1"}, {"tasks", "comments", "crew", "T1"},
		{"tasks", "history", "crew", "T1"}, {"tasks", "board", "crew"},
		{"mail", "inbox", "crew", "--as", "ann"}, {"mail", "thread", "crew", "M1"}, {"mail", "history", "crew"},
		{"plans", "get", "crew"}, {"plans", "list", "crew"},
		{"teams", "snapshot", "list", "crew"}, {"teams", "snapshot", "get", "crew", "S1"},
		{"teams", "snapshot", "restore", "crew", "S1"},
	} {
		r := runCLI(t, dir, "", args...)
		if r.code != 0 {
			t.Errorf("%s beside a reader: exit %d, %s", strings.Join(args, " "), r.code, r.stderr)
		}
		if after := dirState(t, dir); after != before {
			t.Fatalf("%s changed the store's directory: %s -> %s", strings.Join(args, " "), before, after)
		}
	}
	if r := runCLI(t, dir, "", "teams", "snapshot", "restore", "crew", "S1", "--apply"); r.code != exitLocked {
		t.Fatalf("restore --apply beside a reader: exit %d, %s; want %d", r.code, r.stderr, exitLocked)
	}
}
