package proc_test

import (
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/cortexgraph/cortex/internal/proc"
)

func TestAlive(t *testing.T) {
	if !proc.Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	for _, pid := range []int{0, -1} {
		if proc.Alive(pid) {
			t.Errorf("pid %d alive", pid)
		}
	}
	// A process that has ended (and been waited for) is gone.
	cmd := exec.Command(os.Args[0], "-test.run", "XXX")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(cmd.Process.Pid) {
		t.Errorf("ended process %d alive", cmd.Process.Pid)
	}
}

func TestStartID(t *testing.T) {
	self := proc.StartID(os.Getpid())
	if runtime.GOOS != "linux" {
		if self != "" {
			t.Fatalf("StartID = %q off Linux", self)
		}
		t.Skip("only Linux tells a process's start")
	}
	if self == "" || self != proc.StartID(os.Getpid()) {
		t.Fatalf("StartID of this process: %q, then %q", self, proc.StartID(os.Getpid()))
	}
	if parent := proc.StartID(os.Getppid()); parent == "" || parent == self {
		t.Errorf("StartID of the parent: %q (this process: %q)", parent, self)
	}
	for _, pid := range []int{0, -1} {
		if id := proc.StartID(pid); id != "" {
			t.Errorf("StartID(%d) = %q", pid, id)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run", "XXX")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if id := proc.StartID(cmd.Process.Pid); id != "" {
		t.Errorf("StartID of ended process %d = %q", cmd.Process.Pid, id)
	}
}
