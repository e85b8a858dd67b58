package rdfio

import (
	"bufio"
	"errors"
	"io"
	"math/rand"
	"strings"
	"testing"
	"testing/iotest"
)

// splitLines is the reference for readLine: the input cut after every LF,
// and after every CR not followed by LF.
func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\n', s[i] == '\r' && (i+1 == len(s) || s[i+1] != '\n'):
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func TestReadLine(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	pieces := []string{"a", "bc", "\r", "\n", "\r\n", "\r\r", "\n\r", strings.Repeat("x", 15), strings.Repeat("y", 16), strings.Repeat("z", 40)}
	readers := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
		"dataerr": iotest.DataErrReader,
	}
	for n := 0; n < 300; n++ {
		var b strings.Builder
		for k := rnd.Intn(30); k > 0; k-- {
			b.WriteString(pieces[rnd.Intn(len(pieces))])
		}
		src := b.String()
		want := splitLines(src)
		for name, wrap := range readers {
			for _, size := range []int{16, 17, 64} {
				lr := &lineReader{r: bufio.NewReaderSize(wrap(strings.NewReader(src)), size)}
				var got []string
				for {
					line, err := lr.readLine()
					if len(line) > 0 {
						got = append(got, string(line))
					}
					if err != nil {
						if !errors.Is(err, io.EOF) {
							t.Fatalf("%s/%d %q: err %v", name, size, src, err)
						}
						break
					}
					if len(line) == 0 {
						t.Fatalf("%s/%d %q: empty line without error", name, size, src)
					}
				}
				if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
					t.Fatalf("%s/%d %q:\ngot  %q\nwant %q", name, size, src, got, want)
				}
			}
		}
	}
}

// TestReadLine_ReadError checks that the bytes read before a read error are
// returned, a line that a CR ends before it without the error.
func TestReadLine_ReadError(t *testing.T) {
	boom := errors.New("boom")
	for _, src := range []string{"abc", "abc\r", "a\rb", strings.Repeat("x", 40) + "\r"} {
		lr := &lineReader{r: bufio.NewReaderSize(io.MultiReader(strings.NewReader(src), iotest.ErrReader(boom)), 16)}
		var got string
		for {
			line, err := lr.readLine()
			got += string(line)
			if len(line) > 0 && line[len(line)-1] == '\r' && err != nil {
				t.Errorf("%q: the line %q, whole, comes with %v", src, line, err)
			}
			if err != nil {
				if !errors.Is(err, boom) {
					t.Errorf("%q: err = %v, want boom", src, err)
				}
				break
			}
		}
		if got != src {
			t.Errorf("%q: read %q", src, got)
		}
	}
}
