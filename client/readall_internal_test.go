package client

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// A response body of known length is read into one buffer of that
// length, not grown (and copied) as it arrives; one of unknown length, or
// claiming more than maxPresize, is read whole all the same.
func TestReadAll_PresizedByContentLength(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	resp := func(n int64) *http.Response {
		return &http.Response{ContentLength: n, Body: io.NopCloser(bytes.NewReader(data))}
	}
	for _, tc := range []struct {
		name      string
		length    int64
		maxAllocs float64 // 0: not counted
	}{
		{"content length", int64(len(data)), 2},
		{"no content length", -1, 0},
		{"a content length past maxPresize", maxPresize + 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(resp(tc.length))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("readAll: %d bytes, %v; want the %d of the body", len(got), err, len(data))
			}
			if tc.maxAllocs == 0 {
				return
			}
			allocs := testing.AllocsPerRun(5, func() {
				if _, err := readAll(resp(tc.length)); err != nil {
					t.Fatal(err)
				}
			})
			// The response and its body's reader: 3 allocations.
			if allocs-3 > tc.maxAllocs {
				t.Errorf("%.0f allocations to read 1 MiB, want at most %.0f", allocs-3, tc.maxAllocs)
			}
		})
	}
	short := &http.Response{ContentLength: 10, Body: io.NopCloser(strings.NewReader("abc"))}
	if got, err := readAll(short); err != nil || string(got) != "abc" {
		t.Errorf("a body shorter than its length: %q, %v", got, err)
	}
}
