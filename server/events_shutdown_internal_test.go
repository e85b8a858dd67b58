package server

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// registered reports whether shutdowns holds an entry for key.
func registered(key weak.Pointer[http.Server]) bool {
	shutdownsMu.Lock()
	defer shutdownsMu.Unlock()
	_, ok := shutdowns[key]
	return ok
}

// TestEvents_HostServerNotKept: an event stream served by Handler in a
// host's own http.Server registers that server (its Shutdown ends the
// stream); the registration ends with the server. After Shutdown it is
// gone at once; after Close (which runs no OnShutdown function) or a
// server let go, it keeps nothing alive and goes once the server is
// collected. It kept every such server, with its handler and store, for
// the life of the process.
func TestEvents_HostServerNotKept(t *testing.T) {
	store := cortextest.NewStore(t)
	s := New(store, DefaultOptions())
	for _, stop := range []string{"Shutdown", "Close"} {
		t.Run(stop, func(t *testing.T) {
			key := serveOneStream(t, s, stop)
			if stop == "Shutdown" {
				if registered(key) {
					t.Fatal("the server is still registered after its Shutdown")
				}
				return
			}
			// The http.Server is unreachable now but for the registry:
			// it must be collected, and its entry go. (Cleanups run
			// after a collection, on their own goroutine.)
			for i := 0; i < 500 && (key.Value() != nil || registered(key)); i++ {
				runtime.GC()
				time.Sleep(10 * time.Millisecond)
			}
			if key.Value() != nil {
				t.Fatal("the http.Server closed after an event stream is kept alive")
			}
			if registered(key) {
				t.Fatal("the http.Server collected is still registered")
			}
		})
	}
}

// serveOneStream runs s.Handler in an http.Server of its own, opens an
// event stream on it, stops the server by stop ("Shutdown" or "Close"),
// checks that the stream ended, and returns a weak pointer to the server
// (nothing else of the test holds it).
func serveOneStream(t *testing.T, s *Server, stop string) weak.Pointer[http.Server] {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s.Handler()}
	key := weak.Make(hs)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(l) }()
	url := "http://" + l.Addr().String()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	resp, err := c.Post(url+"/ns/acme/rpc", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"teams.create","params":{"id":"t1","name":"n","members":[{"agent":"a"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp, err = c.Get(url + "/ns/acme/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, ": cortex events") {
		t.Fatalf("events: %q, %v", line, err)
	}
	if !registered(key) {
		t.Fatal("a stream under Handler did not register its http.Server (its Shutdown would not end the stream)")
	}
	switch stop {
	case "Shutdown":
		if err := hs.Shutdown(context.Background()); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	default:
		if err := hs.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := io.Copy(io.Discard, br); err != nil && err != io.ErrUnexpectedEOF {
		t.Fatalf("the stream after %s: %v", stop, err)
	}
	return key
}
