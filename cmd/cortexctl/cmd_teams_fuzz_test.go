package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/titanous/json5"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/teammanager"
)

// teamFileKeys and memberKeys are the keys parseTeamFile accepts, in this
// case only.
var (
	teamFileKeys = []string{"id", "name", "strategy", "context", "timeout", "threshold", "tieBreaker", "members"}
	memberKeys   = []string{"agent", "role", "task", "critical"}
)

// FuzzParseTeamFile checks the contract of parseTeamFile, the JSON5 reader of
// "teams create --from". Validation of the contents (name, members, ids,
// strategy) is CreateTeam's job, so the parser guarantees only this:
//
//   - it never panics;
//   - a rejected input returns the zero TeamConfig and an error that maps to
//     the syntax exit code (not JSON5) or the invalid-value exit code (wrong
//     shape, unknown key, a key given twice or nesting past 200 levels, as
//     spec.CheckJSON5 finds them before the JSON5 parser runs), never to
//     "internal";
//   - a top-level or member key outside the documented fields, or one of
//     them in another case, is rejected;
//   - an accepted input yields a Timeout that is -1 (none) or a non-negative
//     whole number of seconds, and a config that survives being written back
//     as a team file and parsed again unchanged.
func FuzzParseTeamFile(f *testing.F) {
	fixtures, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "teams", "*.json5"))
	if err != nil {
		f.Fatal(err)
	}
	if len(fixtures) == 0 {
		f.Fatal("no fixtures in fixtures/teams")
	}
	for _, p := range fixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		``,
		`{`,
		`}`,
		`[]`,
		`null`,
		`"team"`,
		`{name: "unterminated}`,
		`{name: 'x', members: 'alice'}`,
		`{name: 'x', members: [null, 1]}`,
		`{name: 'x', bogus: 1}`,
		`{name: 'x', members: [{agent: 'a', bogus: true}]}`,
		`{name: 'x', timeout: 1.5}`,
		`{name: 'x', timeout: -7}`,
		`{name: 'x', threshold: 'high'}`,
		`{name: 'x', threshold: 0x10, members: [{agent: 'a', critical: 'yes'}]}`,
		"{name: '\xff\xfe', members: [{agent: '\u00e9'}]}",
		`{name: 'x', name: 'y', NAME: 'z'}`,
		`{name: 'x', "n\u0061me": 'y', members: [{agent: 'a', 'agent': 'b'}]}`,
		`{name: 'x', members: [{agent: 'a'}], context: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		`{Name: 'x', members: [{agent: 'a'}]}`,
		`{name: 'x', members: [{Agent: 'a'}]}`,
		`/* comment */ {name: 'x',} // trailing`,
		// Regressions: JSON5 numbers JSON cannot hold gave an unclassified
		// (exit code 1) error; timeouts past the range of time.Duration
		// wrapped around (to "no timeout", or to a fraction of a second).
		`{name: 'x', threshold: NaN}`,
		`{name: 'x', threshold: -Infinity}`,
		`{name: 'x', timeout: Infinity}`,
		`{name: 'x', timeout: 9223372036}`,
		`{name: 'x', timeout: 9223372037}`,
		`{name: 'x', timeout: 18446744074}`,
	} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		tc, err := parseTeamFile(data)

		// A key given twice, or nesting the JSON5 parser may not survive:
		// invalid, whatever the rest of the input.
		if cerr := spec.CheckJSON5(data); cerr != nil {
			if !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), cerr.Error()) || !reflect.DeepEqual(tc, teammanager.TeamConfig{}) {
				t.Fatalf("CheckJSON5: %v; parseTeamFile = %+v, %v, want errInvalid with it", cerr, tc, err)
			}
			return
		}

		// What an independent JSON5 decode says about the input.
		var raw any
		syntaxOK := json5.Unmarshal(data, &raw) == nil

		if err != nil {
			if !errors.Is(err, errSyntax) && !errors.Is(err, errInvalid) {
				t.Fatalf("error %q is neither errSyntax nor errInvalid (exit code %d)", err, exitCode(err))
			}
			if errors.Is(err, errSyntax) == syntaxOK {
				t.Fatalf("errSyntax = %v, but json5 accepts the input = %v: %v", errors.Is(err, errSyntax), syntaxOK, err)
			}
			if !reflect.DeepEqual(tc, teammanager.TeamConfig{}) {
				t.Fatalf("error %v with a non-zero config %+v", err, tc)
			}
			return
		}

		if !syntaxOK {
			t.Fatalf("accepted input that json5 rejects: %+v", tc)
		}
		if k, ok := unknownKey(raw); ok {
			t.Fatalf("accepted unknown key %q: %+v", k, tc)
		}
		if tc.Timeout != -1 && (tc.Timeout < 0 || tc.Timeout%time.Second != 0) {
			t.Fatalf("timeout %d (%v) is neither -1 nor a non-negative number of seconds", int64(tc.Timeout), tc.Timeout)
		}

		again, err := parseTeamFile(encodeTeamFile(t, tc))
		if err != nil {
			t.Fatalf("re-parse of %+v: %v", tc, err)
		}
		if !reflect.DeepEqual(again, tc) {
			t.Fatalf("round trip changed the config:\n got %+v\nwant %+v", again, tc)
		}
	})
}

// unknownKey returns a key of the decoded team file raw (top level or a
// member) that parseTeamFile does not know.
func unknownKey(raw any) (string, bool) {
	top, ok := raw.(map[string]any)
	if !ok {
		return "", false
	}
	for k, v := range top {
		if !knownKey(k, teamFileKeys) {
			return k, true
		}
		if k != "members" {
			continue
		}
		ms, _ := v.([]any)
		for _, m := range ms {
			mm, _ := m.(map[string]any)
			for mk := range mm {
				if !knownKey(mk, memberKeys) {
					return "members[]." + mk, true
				}
			}
		}
	}
	return "", false
}

func knownKey(k string, keys []string) bool {
	return slices.Contains(keys, k)
}

// encodeTeamFile writes tc back in the team file format.
func encodeTeamFile(t *testing.T, tc teammanager.TeamConfig) []byte {
	t.Helper()
	tf := api.TeamConfig{
		ID: tc.ID, Name: tc.Name, Strategy: tc.Strategy, Context: tc.Context,
		Timeout: int64(tc.Timeout / time.Second), Threshold: tc.Threshold, TieBreaker: tc.TieBreaker,
	}
	if tc.Timeout < 0 {
		tf.Timeout = -1
	}
	for _, m := range tc.Members {
		tf.Members = append(tf.Members, api.MemberConfig{Agent: m.AgentID, Role: m.Role, Task: m.Task, Critical: m.Critical})
	}
	data, err := json.Marshal(tf)
	if err != nil {
		t.Fatalf("encode %+v: %v", tc, err)
	}
	return data
}
