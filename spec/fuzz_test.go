package spec_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

var fuzzExts = []string{".md", ".json", ".json5", ".yaml"}

// addSeeds adds every example file of testdata as a seed.
func addSeeds(f *testing.F) {
	filepath.WalkDir(filepath.Join("testdata", "examples"), func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, ext := range fuzzExts {
			if ext == filepath.Ext(p) {
				f.Add(uint8(i), data)
			}
		}
		return nil
	})
	for _, c := range ruleCases {
		for name, content := range c.files {
			for i, ext := range fuzzExts {
				if ext == filepath.Ext(name) {
					f.Add(uint8(i), []byte(content))
				}
			}
		}
	}
}

// FuzzParseAgent: parsing any input as an agent never panics, and a valid
// agent marshals (JSON and Markdown) and parses back equal.
func FuzzParseAgent(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, ext uint8, data []byte) {
		file := "agent" + fuzzExts[int(ext)%len(fuzzExts)]
		a, rep := spec.ParseAgent(file, data, spec.Options{})
		if rep.Errors() > 0 {
			return
		}
		if a == nil {
			t.Fatal("no errors and no agent")
		}
		roundTripAgent(t, a, spec.FormatJSON)
		roundTripAgent(t, a, spec.FormatMarkdown)
	})
}

// FuzzParseTeam: parsing any input as a team never panics, and a valid
// team marshals and parses back equal.
func FuzzParseTeam(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, ext uint8, data []byte) {
		file := "team" + fuzzExts[1+int(ext)%(len(fuzzExts)-1)]
		tm, rep := spec.ParseTeam(file, data, spec.Options{})
		if rep.Errors() > 0 {
			return
		}
		if tm == nil {
			t.Fatal("no errors and no team")
		}
		roundTripTeam(t, tm)
	})
}

// FuzzParse: guessing the kind never panics, and the definition it finds
// is the one ParseAgent or ParseTeam finds.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, ext uint8, data []byte) {
		file := "def" + fuzzExts[int(ext)%len(fuzzExts)]
		def, rep := spec.Parse(file, data, spec.Options{})
		if rep.Errors() > 0 {
			return
		}
		switch def.Kind {
		case spec.KindAgent:
			a, _ := spec.ParseAgent(file, data, spec.Options{})
			if !reflect.DeepEqual(a, def.Agent) {
				t.Fatalf("Parse %#v, ParseAgent %#v", def.Agent, a)
			}
		case spec.KindTeam:
			tm, _ := spec.ParseTeam(file, data, spec.Options{})
			if !reflect.DeepEqual(tm, def.Team) {
				t.Fatalf("Parse %#v, ParseTeam %#v", def.Team, tm)
			}
		default:
			t.Fatalf("no errors and kind %q", def.Kind)
		}
	})
}
