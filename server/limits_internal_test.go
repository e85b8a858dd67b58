package server

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"
)

// A spool gives back exactly what was written to it, in every split of
// the writes: within its first chunk, across chunks, up to its memory
// limit and past it (then in a temporary file, removed by Close).
func TestSpool_WritesBackWhatWasWritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name    string
		size    int
		maxPart int
		inFile  bool
	}{
		{"empty", 0, 1, false},
		{"one byte", 1, 1, false},
		{"within a chunk", spoolChunkBytes - 1, 4096, false},
		{"a chunk exactly", spoolChunkBytes, spoolChunkBytes, false},
		{"across chunks in odd writes", 5*spoolChunkBytes + 17, 7919, false},
		{"one write across chunks", 3*spoolChunkBytes + 1, 3*spoolChunkBytes + 1, false},
		{"the memory limit exactly", spoolMemBytes, 4096, false},
		{"one byte past the memory limit", spoolMemBytes + 1, 4096, true},
		{"well past it", 3*spoolMemBytes + 12345, 100_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := make([]byte, tc.size)
			for i := range want {
				want[i] = byte(rng.Uint32())
			}
			sp := &spool{}
			for p := want; len(p) > 0; {
				k := min(len(p), 1+rng.IntN(tc.maxPart))
				n, err := sp.Write(p[:k])
				if err != nil || n != k {
					t.Fatalf("Write(%d bytes) = %d, %v", k, n, err)
				}
				p = p[k:]
			}
			if sp.n != int64(tc.size) {
				t.Errorf("n = %d, want %d", sp.n, tc.size)
			}
			if sp.mem > spoolMemBytes {
				t.Errorf("%d bytes in memory, more than %d", sp.mem, spoolMemBytes)
			}
			if (sp.f != nil) != tc.inFile {
				t.Errorf("in a file: %v, want %v", sp.f != nil, tc.inFile)
			}
			var got bytes.Buffer
			if err := sp.writeTo(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("the spool gave back %d bytes that differ from the %d written", got.Len(), len(want))
			}
			var name string
			if sp.f != nil {
				name = sp.f.Name()
			}
			sp.Close()
			if name != "" {
				if _, err := os.Stat(name); !os.IsNotExist(err) {
					t.Errorf("the spool's file %s after Close: %v", name, err)
				}
			}
			if len(sp.chunks) != 0 {
				t.Errorf("%d chunks kept after Close", len(sp.chunks))
			}
		})
	}
}
