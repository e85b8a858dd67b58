package rdfio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
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

// TestTurtle_CutLinesReadTheSame reads every Turtle document of the W3C
// suite, and a few of long lines, through buffers of 16 to 40 bytes, where
// nearly every line is longer than the buffer and so is cut (cutState), and
// wants the same triples and the same error (message and position) as
// through the decoder's own buffer.
func TestTurtle_CutLinesReadTheSame(t *testing.T) {
	docs := map[string]string{
		"one line": `@prefix : <http://ex.org/> . :s :p "a b \" c" , """x "" y ' z""" , '''p '' q " r''' , 'it\'s  ok' ; :q """q\"""" , "t"@en , :a\#b\'c , ( 1 2.5 [ :r "s t" ] ) . :s :p "" , '' , """""" , '''''' . # a comment "with ' quotes
:s :p """multi
line ' " string""" .`,
		"error after cuts":       `@prefix : <http://ex.org/> . :s :p "a b c d e f g h" , "i j k l m n" , :o , <http://ex.org/a b> .`,
		"error in a long string": `@prefix : <http://ex.org/> . :s :p """a b c d e f g h i j k l \q m n""" .`,
		// A line that starts inside a long string: the cut must not take
		// the string's closing quotes for opening ones, then cut inside
		// the short string after them.
		"line starts in a long string": "@prefix : <http://ex.org/> .\n:s :p '''a\nb''' . :s :q \"c ''' d e f g h i j k l m n o p\" .\n" +
			":s :p \"\"\"x\ny\"\"\" , 'q \"\"\" r s t u v w x y z' .\n",
	}
	if dir := w3cTurtleDir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ttl"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs[filepath.Base(f)] = string(b)
		}
	}
	for name, src := range docs {
		want := readTurtleThrough(t, src, 0)
		for _, size := range []int{16, 17, 19, 23, 40} {
			if got := readTurtleThrough(t, src, size); got != want {
				t.Errorf("%s through %d bytes:\n%s\nwant\n%s", name, size, got, want)
			}
		}
	}
}

// FuzzTurtleCut: a document reads the same through a buffer of 16 bytes,
// where most lines are cut, as through the decoder's own.
func FuzzTurtleCut(f *testing.F) {
	for _, s := range []string{
		`@prefix : <http://ex.org/> . :s :p "a b \" c" , """x "" y ' z""" , 'it\'s  ok' ; :q :a\#b\'c . # "c`,
		"<http://ex.org/s> <http://ex.org/p> '''a\rb''' .\r\n<http://ex.org/s> <http://ex.org/p> 1, 2 .",
		"<http://ex.org/s> <http://ex.org/p> '''a\nb''' , \"c ''' d e f g h\" .\n",
	} {
		f.Add(s)
	}
	if dir := w3cTurtleDir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ttl"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(string(b))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := readTurtleThrough(t, src, 16), readTurtleThrough(t, src, 0); got != want {
			t.Fatalf("through 16 bytes:\n%s\nwant\n%s", got, want)
		}
	})
}

// readTurtleThrough reads src as Turtle through a buffer of size bytes (the
// decoder's own if 0) and returns its quads and its error, one a line.
func readTurtleThrough(t *testing.T, src string, size int) string {
	t.Helper()
	d, err := newTurtleDecoder(strings.NewReader(src), DecodeOptions{Base: "http://base.example/a/b"})
	if err != nil {
		t.Fatal(err)
	}
	if size > 0 {
		d.(*turtleDecoder).lex.lines.r = bufio.NewReaderSize(strings.NewReader(src), size)
	}
	var out strings.Builder
	for {
		q, err := d.Next()
		if err != nil {
			fmt.Fprintf(&out, "%v\n", err)
			return out.String()
		}
		fmt.Fprintf(&out, "%#v\n", q)
	}
}

// w3cTurtleDir returns the W3C Turtle suite's directory
// (../shared/w3c/rdf/rdf11/rdf-turtle beside the repository), or "".
func w3cTurtleDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			suite := filepath.Join(dir, "..", "shared", "w3c", "rdf", "rdf11", "rdf-turtle")
			if _, err := os.Stat(suite); err != nil {
				return ""
			}
			return suite
		}
	}
	return ""
}

// TestNTriples_CutLinesReadTheSame reads every document of the W3C
// N-Triples and N-Quads suites, and a few of long lines, through buffers of
// 16 to 40 bytes, where nearly every line is longer than the buffer and so
// is read in pieces (cutState), and wants the same quads and the same error
// (message and position) as through the decoder's own buffer.
func TestNTriples_CutLinesReadTheSame(t *testing.T) {
	docs := map[string]string{
		"spaces": "<http://ex.org/s>    <http://ex.org/p>\t\t  \"a b  c\"   @en   .   # a comment \"with quotes\n" +
			"<http://ex.org/s>   <http://ex.org/p>     \"x\"   ^^   <http://ex.org/d>   <http://ex.org/g>   .  \n" +
			"_:b1     <http://ex.org/p>   _:b2.   \n<http://ex.org/s> <http://ex.org/p> \"\"\"\" .\n",
		"error after spaces": "<http://ex.org/s>        <http://ex.org/p>         \"abc\"        <http://ex.org/a b> .\n",
		"error at the end":   "<http://ex.org/s>        <http://ex.org/p>         \"abc\"        ",
	}
	if dir := w3cTurtleDir(); dir != "" {
		for _, suite := range []string{"rdf-n-triples/*.nt", "rdf-n-quads/*.nq"} {
			files, _ := filepath.Glob(filepath.Join(dir, "..", suite))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				docs[filepath.Base(f)] = string(b)
			}
		}
	}
	for name, src := range docs {
		for _, quads := range []bool{false, true} {
			want := readLinesThrough(t, src, quads, 0)
			for _, size := range []int{16, 17, 19, 23, 40} {
				if got := readLinesThrough(t, src, quads, size); got != want {
					t.Errorf("%s (quads %v) through %d bytes:\n%s\nwant\n%s", name, quads, size, got, want)
				}
			}
		}
	}
}

// readLinesThrough reads src as N-Triples (N-Quads if quads) through a
// buffer of size bytes (the decoder's own if 0) and returns its quads and
// its error, one a line.
func readLinesThrough(t *testing.T, src string, quads bool, size int) string {
	t.Helper()
	d, err := newLineDecoder(strings.NewReader(src), DecodeOptions{}, quads)
	if err != nil {
		t.Fatal(err)
	}
	if size > 0 {
		d.(*lineDecoder).lines.r = bufio.NewReaderSize(strings.NewReader(src), size)
	}
	var out strings.Builder
	for {
		q, err := d.Next()
		if err != nil {
			fmt.Fprintf(&out, "%v\n", err)
			return out.String()
		}
		fmt.Fprintf(&out, "%#v\n", q)
	}
}

// FuzzNTriplesCut: an N-Quads document reads the same through a buffer of
// 16 bytes, where most lines are read in pieces, as through the decoder's
// own.
func FuzzNTriplesCut(f *testing.F) {
	for _, s := range []string{
		"<http://ex.org/s>    <http://ex.org/p>\t\t  \"a b  c\"   @en   .   # a comment \"with quotes\n",
		"<http://ex.org/s>   <http://ex.org/p>     \"x\"   ^^   <http://ex.org/d>   <http://ex.org/g>   .  \r\n_:b1     <http://ex.org/p>   _:b2.",
		"<http://ex.org/s> <http://ex.org/p> \"\"\"\" . #" + strings.Repeat("c", 40),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := readLinesThrough(t, src, true, 16), readLinesThrough(t, src, true, 0); got != want {
			t.Fatalf("through 16 bytes:\n%s\nwant\n%s", got, want)
		}
	})
}
