package main

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// TestRemote_ServerTimeout: a command sent to a server that accepts it,
// reads it and never answers gives up once --server-timeout (or
// CORTEX_SERVER_TIMEOUT) is over, exit 8, saying the server did not
// answer; it used to wait until interrupted. A negative value is an
// invalid value (exit 7), before anything is sent.
func TestRemote_ServerTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c) //nolint:errcheck // read, never answered
		}
	}()
	url := "http://" + l.Addr().String()
	data := t.TempDir()
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"flag", nil, []string{"--server-timeout", "200ms", "strategies"}, exitTimeout, "no answer within 200ms"},
		{"env", []string{"CORTEX_SERVER_TIMEOUT=150ms"}, []string{"-n", "acme", "teams", "list"}, exitTimeout, "no answer within 150ms"},
		{"query", nil, []string{"--server-timeout", "100ms", "query", "--timeout", "50ms", "ASK {}"}, exitTimeout, "no answer within"},
		{"negative", nil, []string{"--server-timeout", "-1s", "strategies"}, exitInvalid, "--server-timeout -1s: want 0 (no limit) or a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBinary(t, tc.env, append([]string{"--data", data, "--server", url}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d: %s; want exit %d saying %q", r.code, r.stderr, tc.code, tc.want)
			}
		})
	}
}
