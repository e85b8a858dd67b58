package server

import "testing"

// TestRoles_EveryMethodHasARole checks that the role table names every
// JSON-RPC method (a method it misses would need admin).
func TestRoles_EveryMethodHasARole(t *testing.T) {
	for _, m := range Methods() {
		if _, ok := roles["rpc "+m]; !ok {
			t.Errorf("method %s has no role in the table", m)
		}
	}
	for _, route := range []string{"rpc POST", "sparql GET", "sparql POST", "data GET", "data PUT", "data POST", "data DELETE", "events GET"} {
		if _, ok := roles[route]; !ok {
			t.Errorf("%s has no role in the table", route)
		}
	}
}
