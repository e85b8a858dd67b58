package server

import (
	"context"
	"net"
	"runtime"
	"testing"
)

// A stream whose request passed the checks while shutdown began is
// either counted before wait looks or refused: with a sync.WaitGroup, its
// Add could race wait's Wait (a misuse that may panic), and a stream
// hijacked after wait had closed the others' connections kept running.
func TestStreamSet_ShutdownRefusesAndCutsLateStreams(t *testing.T) {
	t.Run("refused once wait began", func(t *testing.T) {
		var ss streamSet
		if !ss.wait(context.Background()) {
			t.Fatal("wait with no stream reported a cut")
		}
		if ss.begin() {
			t.Fatal("begin after wait began: true, want false")
		}
	})
	t.Run("late connection closed after the cut", func(t *testing.T) {
		var ss streamSet
		if !ss.begin() {
			t.Fatal("begin before shutdown: false")
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		waited := make(chan bool)
		go func() { waited <- ss.wait(ctx) }()
		// The stream hijacks its connection only now, after wait gave up
		// (it waits for the stream to end, which needs its connection
		// closed).
		server, client := net.Pipe()
		defer client.Close()
		for {
			ss.mu.Lock()
			cut := ss.cut
			ss.mu.Unlock()
			if cut {
				break
			}
			runtime.Gosched()
		}
		ss.add(server)
		if _, err := server.Write([]byte("x")); err == nil {
			t.Fatal("write on a connection added after the cut: nil error, want closed")
		}
		ss.remove(server)
		ss.end()
		if <-waited {
			t.Fatal("wait that cut a stream reported none")
		}
	})
}
