package config_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/config"
)

// FuzzParse: any input either parses into a valid config or fails with
// ErrInvalid; it never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{teams: {maxTeamSize: 8, defaultStrategy: "additive", workflowTimeout: 600}}`,
		`{namespaces: {a: {base: "urn:x"}}, prefixes: {ex: "http://e/"}}`,
		`{teams: {maxTeamSize: 1e3}}`, `[]`, `null`, `{`, `{"teams": {"x": [1, {}]}}`,
		"\ufeff{teams: {maxTeamSize: 4}}", `{teams: {defaultStrategy: "majority"}}`,
		`{prefixes: {"e\ncortexctl: x": "http://e/"}, teams: {eventMax: 0, maxTeamSize: 0}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := config.Parse([]byte(s))
		if err != nil {
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if c.Teams.MaxTeamSize < 1 || c.Teams.MaxTeamSize > 1000 || c.Teams.WorkflowTimeout < 0 || c.Teams.DefaultStrategy == "" {
			t.Fatalf("accepted invalid config %+v", c.Teams)
		}
	})
}
