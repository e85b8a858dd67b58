package proc_test

import (
	"os"
	"os/exec"
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
