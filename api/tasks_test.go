package api_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

func jsonNames(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestBoard_EverySetting: the JSON shape of a board carries every setting
// of teammanager.BoardSettings (and the team), and the params of a change
// name the same fields.
func TestBoard_EverySetting(t *testing.T) {
	if got, want := reflect.TypeOf(api.Board{}).NumField(), reflect.TypeOf(teammanager.BoardSettings{}).NumField()+1; got != want {
		t.Fatalf("api.Board has %d fields, want %d: every BoardSettings field and the team", got, want)
	}
	if b, u := jsonNames(api.Board{}), jsonNames(api.BoardUpdate{}); !slices.Equal(b, u) {
		t.Fatalf("api.Board fields %v, api.BoardUpdate fields %v", b, u)
	}
	s := teammanager.BoardSettings{Lead: "ann", AllowRequests: true, LeadMayWork: true, MaxDispatches: 4, Lease: 90e9, StaleAfter: 120e9,
		PlanApproval: true, PlanApprover: "cat"}
	if got, err := api.BoardOf("crew", s).Settings(); err != nil || got != s {
		t.Fatalf("BoardOf(s).Settings() = %+v, %v; want %+v", got, err, s)
	}
}

// TestMessage_EveryField: the JSON shape of a message carries every
// exported field of teammanager.Message, so that a message read through a
// server is the message read in process (teammanager.Message had Left,
// retention's bookkeeping, that no JSON shape carried).
func TestMessage_EveryField(t *testing.T) {
	wire := reflect.TypeOf(api.Message{})
	lib := reflect.TypeOf(teammanager.Message{})
	for i := range lib.NumField() {
		f := lib.Field(i)
		if !f.IsExported() {
			continue
		}
		if _, ok := wire.FieldByName(f.Name); !ok {
			t.Errorf("teammanager.Message.%s has no field in api.Message", f.Name)
		}
	}
}
