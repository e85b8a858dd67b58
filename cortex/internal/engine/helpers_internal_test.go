package engine

import (
	"context"
	"testing"

	"github.com/cayleygraph/quad"
)

// Pins returns the namespace's pins (Delta.Pin): node id → term.
func Pins(t testing.TB, n *Namespace) map[termID]quad.Value {
	t.Helper()
	pins, err := n.pins(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pins
}

// CheckFormat fails the test unless the namespace passes Namespace.Check.
func CheckFormat(t *testing.T, n *Namespace) { bulkCheckFormat(t, n) }
