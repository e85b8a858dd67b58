package engine

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// TestBadgerLogger: Badger's warnings and errors reach the store's Logger,
// and nothing else: without a Logger (the default) they are dropped, never
// written to the process's stderr (where Badger's "Block cache might be too
// small" used to appear in cortexctl's output).
func TestBadgerLogger(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	quiet := badgerLogger{}
	quiet.Warningf("Block cache might be too small. Metrics: %s\n", "x")
	quiet.Errorf("an error %d\n", 1)
	quiet.Infof("chatter\n")
	os.Stderr = stderr
	w.Close()
	out, _ := io.ReadAll(r)
	if len(out) != 0 {
		t.Fatalf("without a Logger, Badger wrote to stderr: %q", out)
	}

	var got []string
	loud := badgerLogger{l: printfFunc(func(f string, v ...any) { got = append(got, strings.TrimSpace(fmt.Sprintf(f, v...))) })}
	loud.Warningf("Block cache might be too small. Metrics: %s\n", "x")
	loud.Errorf("an error %d\n", 1)
	loud.Infof("chatter\n")
	loud.Debugf("chatter\n")
	want := []string{"badger warning: Block cache might be too small. Metrics: x", "badger error: an error 1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("logged %q, want %q", got, want)
	}
}

type printfFunc func(string, ...any)

func (f printfFunc) Printf(format string, v ...any) { f(format, v...) }
