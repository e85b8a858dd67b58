package results_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

const (
	xsd = "http://www.w3.org/2001/XMLSchema#"
	ex  = "http://example.org/"
)

// fixture returns a result holding every term kind and the awkward
// characters each format must escape. The XML-forbidden control characters
// are exercised separately.
func fixture() *results.Result {
	return &results.Result{
		Vars: []string{"s", "p", "o"},
		Rows: []results.Row{
			{quad.IRI(ex + "a"), quad.IRI(ex + "odd path<>\"{}|^`\\é#frag"), quad.BNode("b0")},
			{quad.BNode("b0"), quad.String("plain"), quad.LangString{Value: "chat", Lang: "fr"}},
			{quad.TypedString{Value: "01", Type: xsd + "integer"}, quad.TypedString{Value: "2020-01-01", Type: xsd + "date"}, quad.TypedString{Value: "typed as string", Type: xsd + "string"}},
			{quad.String("unicode: é 日本 😀"), quad.String(`quote " and 'single'`), quad.String("line1\nline2\r\nline3")},
			{quad.String("tab\there"), quad.String("comma, here"), nil},
			{nil, nil, nil},
			{quad.LangString{Value: "Hello", Lang: "en-US"}, quad.TypedString{Value: "1.50", Type: xsd + "decimal"}, quad.TypedString{Value: "1.0E0", Type: xsd + "double"}},
			{quad.TypedString{Value: "true", Type: xsd + "boolean"}, quad.BNode("b1"), quad.String("")},
			{quad.String(`back\slash & <tag> ]]>`), quad.IRI(ex + "ns#x"), quad.TypedString{Value: "-5", Type: xsd + "integer"}},
		},
	}
}

// normalised returns the fixture as readers return it: xsd:string typed
// literals become plain.
func normalised() *results.Result {
	r := fixture()
	for _, row := range r.Rows {
		for i, v := range row {
			if t, ok := v.(quad.TypedString); ok && t.Type == xsd+"string" {
				row[i] = t.Value
			}
		}
	}
	return r
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s mismatch (run with -update to accept)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func TestGolden(t *testing.T) {
	formats := map[string]results.Format{}
	for _, name := range results.Names() {
		f, err := results.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		formats[name] = f
	}
	formats["table-prefixed"] = results.Table(results.DefaultTableOptions().WithPrefixes(map[string]string{
		"ex": ex, "xsd": xsd, "e": "http://example.org/ns#",
	}))
	for name, f := range formats {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := f.WriteResult(&buf, fixture()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "select."+name+".golden", buf.Bytes())

			for _, b := range []bool{true, false} {
				buf.Reset()
				if err := f.WriteResult(&buf, &results.Result{Boolean: &b}); err != nil {
					t.Fatal(err)
				}
				kind := "true"
				if !b {
					kind = "false"
				}
				checkGolden(t, "ask-"+kind+"."+name+".golden", buf.Bytes())
			}

			buf.Reset()
			if err := f.WriteResult(&buf, &results.Result{Vars: []string{"x", "y"}}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "empty."+name+".golden", buf.Bytes())
		})
	}
}

func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"json", "xml", "tsv"} {
		t.Run(name, func(t *testing.T) {
			f, err := results.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := f.WriteResult(&buf, fixture()); err != nil {
				t.Fatal(err)
			}
			got, err := f.Read(&buf)
			if err != nil {
				t.Fatalf("read back: %v\n%s", err, buf.Bytes())
			}
			if !results.Equivalent(fixture(), got, true) {
				t.Errorf("not equivalent after round trip:\n%#v", got.Rows)
			}
			// Stronger than Equivalent: terms (and bnode labels, lang case) are
			// preserved exactly.
			if want := normalised(); !reflect.DeepEqual(got.Vars, want.Vars) || !reflect.DeepEqual(got.Rows, want.Rows) {
				t.Errorf("round trip changed terms:\ngot  %#v\nwant %#v", got.Rows, want.Rows)
			}
			for _, b := range []bool{true, false} {
				buf.Reset()
				if err := f.WriteBoolean(&buf, b); err != nil {
					t.Fatal(err)
				}
				got, err := f.Read(&buf)
				if err != nil {
					t.Fatal(err)
				}
				if got.Boolean == nil || *got.Boolean != b {
					t.Errorf("boolean %v read back as %+v", b, got)
				}
			}
			// No variables, one empty row (SELECT * {}).
			buf.Reset()
			empty := &results.Result{Vars: []string{}, Rows: []results.Row{{}}}
			if err := f.WriteResult(&buf, empty); err != nil {
				t.Fatal(err)
			}
			got, err = f.Read(&buf)
			if err != nil {
				t.Fatalf("read back: %v\n%q", err, buf.Bytes())
			}
			if !results.Equivalent(empty, got, true) {
				t.Errorf("zero-variable result read back as %+v", got)
			}
		})
	}
}

func TestCSVRoundTripThroughView(t *testing.T) {
	f, err := results.Lookup("csv")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.WriteResult(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	got, err := f.Read(&buf)
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, buf.Bytes())
	}
	if want := results.CSVView(fixture()); !results.Equivalent(want, got, true) {
		t.Errorf("csv read back %#v\nwant %#v", got.Rows, want.Rows)
	}
	// Spot-check the documented guesses.
	if got.Rows[0][0] != quad.IRI(ex+"a") || got.Rows[0][2] != quad.BNode("b0") ||
		got.Rows[1][2] != quad.String("chat") || got.Rows[2][0] != quad.String("01") || got.Rows[7][2] != nil {
		t.Errorf("unexpected csv terms: %#v %#v %#v %#v", got.Rows[0], got.Rows[1], got.Rows[2], got.Rows[7])
	}
}

// w3cDir holds the W3C SPARQL test suites; override with CORTEX_W3C_SPARQL.
func w3cDir() string {
	if d := os.Getenv("CORTEX_W3C_SPARQL"); d != "" {
		return d
	}
	return "/work/shared/w3c/sparql"
}

func TestReadW3CFiles(t *testing.T) {
	dir := w3cDir()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("w3c suite not available: %v", err)
	}
	counts := map[string]int{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := strings.ToLower(filepath.Ext(path))
		switch ext {
		case ".srx", ".srj", ".tsv", ".csv":
		default:
			return nil
		}
		f, err := results.ByExtension(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		res, err := f.Read(in)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		counts[ext]++
		// Everything read back must be writable again in the same format and
		// read back to an equivalent result.
		var buf bytes.Buffer
		if err := f.WriteResult(&buf, res); err != nil {
			t.Errorf("%s: rewrite: %v", path, err)
			return nil
		}
		again, err := f.Read(&buf)
		if err != nil {
			t.Errorf("%s: reread: %v", path, err)
			return nil
		}
		if ext != ".csv" && !results.Equivalent(res, again, true) {
			t.Errorf("%s: rewrite not equivalent", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	t.Logf("read %d W3C result files: %v", total, counts)
	if total == 0 {
		t.Skip("no result files found")
	}
}

func TestRegistry(t *testing.T) {
	want := []string{"csv", "json", "table", "tsv", "xml"}
	var got []string
	for _, n := range results.Names() {
		if !strings.HasPrefix(n, "x-test-") { // registered by TestRegister
			got = append(got, n)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	t.Run("LookupCaseInsensitive", func(t *testing.T) {
		f, err := results.Lookup("JSON")
		if err != nil || f.Name != "json" || f.MediaType != "application/sparql-results+json" {
			t.Errorf("Lookup(JSON) = %v, %v", f.Name, err)
		}
	})
	t.Run("LookupUnknown", func(t *testing.T) {
		_, err := results.Lookup("yaml")
		if !errors.Is(err, results.ErrUnknownFormat) {
			t.Fatalf("err = %v, want ErrUnknownFormat", err)
		}
		for _, n := range want {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("error %q does not list %q", err, n)
			}
		}
	})
	for _, tc := range []struct{ path, want string }{
		{"a/b/result.srx", "xml"}, {"R.SRJ", "json"}, {"x.tsv", "tsv"}, {"x.csv", "csv"}, {"x.json", "json"}, {"x.xml", "xml"},
	} {
		t.Run("ByExtension_"+tc.path, func(t *testing.T) {
			f, err := results.ByExtension(tc.path)
			if err != nil || f.Name != tc.want {
				t.Errorf("ByExtension(%q) = %q, %v; want %q", tc.path, f.Name, err, tc.want)
			}
		})
	}
	for _, p := range []string{"x.txt", "noext", ""} {
		if _, err := results.ByExtension(p); !errors.Is(err, results.ErrUnknownFormat) {
			t.Errorf("ByExtension(%q) err = %v, want ErrUnknownFormat", p, err)
		}
	}
	t.Run("TableNotReadable", func(t *testing.T) {
		f, _ := results.Lookup("table")
		if f.Read != nil {
			t.Error("table format should have no reader")
		}
	})
}

func TestRegistry_RegisterPanics(t *testing.T) {
	valid := results.JSON()
	valid.Name, valid.Extensions = "json2", []string{".j2"}
	for _, tc := range []struct {
		name string
		f    func(results.Format) results.Format
	}{
		{"DuplicateName", func(f results.Format) results.Format { f.Name = "json"; return f }},
		{"DuplicateExtension", func(f results.Format) results.Format { f.Extensions = []string{".srx"}; return f }},
		{"EmptyName", func(f results.Format) results.Format { f.Name = ""; return f }},
		{"UpperCaseName", func(f results.Format) results.Format { f.Name = "Json2"; return f }},
		{"NoWriter", func(f results.Format) results.Format { f.NewWriter = nil; return f }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := results.NewRegistry(results.JSON(), results.XML())
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			r.Register(tc.f(valid))
		})
	}
	t.Run("Valid", func(t *testing.T) {
		r := results.NewRegistry(results.JSON())
		r.Register(valid)
		if got := r.Names(); !reflect.DeepEqual(got, []string{"json", "json2"}) {
			t.Errorf("Names() = %v", got)
		}
		if f, err := r.ByExtension("a.j2"); err != nil || f.Name != "json2" {
			t.Errorf("ByExtension = %q, %v", f.Name, err)
		}
	})
}

// TestRegister: a format registered in the default registry is found by
// Lookup, ByExtension and Names; registering its name again panics.
func TestRegister(t *testing.T) {
	f := results.JSON()
	f.Name, f.Extensions, f.MediaType = "x-test-json", []string{".xtj"}, "application/x-test"
	results.Register(f)
	if got, err := results.Lookup("x-test-json"); err != nil || got.MediaType != "application/x-test" {
		t.Fatalf("Lookup = %v, %v", got.Name, err)
	}
	if got, err := results.ByExtension("r.xtj"); err != nil || got.Name != "x-test-json" {
		t.Fatalf("ByExtension = %v, %v", got.Name, err)
	}
	if !slices.Contains(results.Names(), "x-test-json") {
		t.Fatalf("Names() = %v", results.Names())
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice did not panic")
		}
	}()
	results.Register(f)
}
