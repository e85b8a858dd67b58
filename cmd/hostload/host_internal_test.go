package main

import "testing"

// unixSocket reads a target as client.New does: a unix:// URL's path is
// percent-decoded, a path is taken as it is, anything else is no socket.
func TestUnixSocket(t *testing.T) {
	for _, c := range []struct {
		target, socket string
		ok, err        bool
	}{
		{"unix:///tmp/a%20b/cortex.sock", "/tmp/a b/cortex.sock", true, false},
		{"unix:///tmp/100%25/s.sock", "/tmp/100%/s.sock", true, false},
		{"unix:///tmp/plain.sock", "/tmp/plain.sock", true, false},
		{"/tmp/a%20b/s.sock", "/tmp/a%20b/s.sock", true, false},
		{"unix://", "", false, false},
		{"unix:///tmp/%zz", "", false, true},
		{"http://127.0.0.1:7474", "", false, false},
	} {
		socket, ok, err := unixSocket(c.target)
		if (err != nil) != c.err || ok != c.ok || (ok && socket != c.socket) {
			t.Errorf("unixSocket(%q) = %q, %v, %v; want %q, %v, error %v", c.target, socket, ok, err, c.socket, c.ok, c.err)
		}
	}
}
