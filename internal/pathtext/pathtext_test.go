package pathtext_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexgraph/cortex/internal/pathtext"
)

// TestQuote: a plain path is named as it is, any other quoted.
func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/tmp/data.ttl", "/tmp/data.ttl"},
		{"my data/été.ttl", "my data/été.ttl"},
		{`C:\data\a.ttl`, `C:\data\a.ttl`},
		{"", `""`},
		{" a", `" a"`},
		{"a ", `"a "`},
		{"a\nb", `"a\nb"`},
		{"a\tb", `"a\tb"`},
		{"a\x1b[31mb", `"a\x1b[31mb"`},
		{"a\xffb", `"a\xffb"`},
		{`a"b`, `"a\"b"`},
		// ": " separates a message's parts: "open a: b: no such file"
		// would not say where the path ends.
		{"a: b", `"a: b"`},
		{"a:b", "a:b"},
		{"a :b", "a :b"},
		{"a\u202eb", `"a\u202eb"`},
		{"a\u00a0b", `"a\u00a0b"`},
		{"a\u2028b", `"a\u2028b"`},
	} {
		if got := pathtext.Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a\nb")
	_, err := os.Stat(p)
	q := pathtext.Error(err)
	if want := "stat " + pathtext.Quote(p) + ": no such file or directory"; q.Error() != want {
		t.Errorf("got %q, want %q", q, want)
	}
	var pe *fs.PathError
	if !errors.As(q, &pe) || !errors.Is(q, fs.ErrNotExist) {
		t.Errorf("%v: the *fs.PathError is lost", q)
	}
	other := errors.New("x")
	if pathtext.Error(other) != other {
		t.Error("another error is changed")
	}
}

// TestError_LinkError: the two paths of an *os.LinkError (os.Rename) are
// named by Quote too.
func TestError_LinkError(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a\nb"), filepath.Join(dir, `c"d`)
	err := os.Rename(from, to)
	q := pathtext.Error(err)
	if want := "rename " + pathtext.Quote(from) + " " + pathtext.Quote(to) + ": no such file or directory"; q.Error() != want {
		t.Errorf("got %q, want %q", q, want)
	}
	var le *os.LinkError
	if !errors.As(q, &le) || !errors.Is(q, fs.ErrNotExist) {
		t.Errorf("%v: the *os.LinkError is lost", q)
	}
}
