//go:build unix

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCLI_ReadCommands_ReadOnlyDirectory: read-only commands work on a
// store whose files and directory nobody may write (chmod -R 0555), and
// leave it as it was. Run as root, the binary runs as user nobody, for
// whom the permissions hold.
func TestCLI_ReadCommands_ReadOnlyDirectory(t *testing.T) {
	parent, err := os.MkdirTemp("", "cortexctl-ro-")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "store")
	src := populatedStore(t)
	if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	bin := filepath.Join(parent, "cortexctl")
	if out, err := exec.Command("cp", buildCLI(t), bin).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	chmodTree := func(mode os.FileMode) {
		_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, _ error) error { return os.Chmod(p, mode) })
	}
	t.Cleanup(func() {
		chmodTree(0o755)
		os.RemoveAll(parent)
	})
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	chmodTree(0o555)
	for _, args := range readOnlyCommands {
		before := treeState(t, dir)
		cmd := exec.Command(bin, append([]string{"--data", dir}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+parent)
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Errorf("%v: %v: %s", args, err, errb.String())
		}
		if after := treeState(t, dir); after != before {
			t.Fatalf("%v changed the store:\n%s\n---\n%s", args, before, after)
		}
	}
}
