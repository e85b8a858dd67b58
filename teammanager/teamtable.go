package teammanager

import (
	"slices"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// The team table is a side table of the store (cortex side.go): one row per
// team, keyed by team id, holding the values of the listed fields (listPreds
// order) as its state graph has them. Every write of the Manager puts or
// deletes the rows of the teams it changes and keeps the table
// (Tx.KeepSide) in the same atomic step; so while only Managers write the
// namespace, the table is current and ListTeams reads it alone. Any other
// write of quads leaves it stale, and ListTeams reads the quads (and
// rebuilds the table) until it is current again.
const teamTable = "teams"

// tableRow returns the row of a team node with properties props (predicate
// → values; the first value of each listed field).
func (m *Manager) tableRow(props map[quad.Value][]quad.Value) []quad.Value {
	row := make([]quad.Value, nListFields)
	for f, p := range m.listPreds {
		if vs := props[p]; len(vs) > 0 {
			row[f] = vs[0]
		}
	}
	return row
}

// putTeamRow stages, in tx, team id's row from its node's properties, and
// keeps the table.
func (m *Manager) putTeamRow(tx *cortex.Tx, id string, props map[quad.Value][]quad.Value) {
	tx.PutSide(teamTable, id, m.tableRow(props))
	tx.KeepSide(teamTable)
}

// nodeProps returns the properties of node among qs.
func nodeProps(node quad.Value, qs []quad.Quad) map[quad.Value][]quad.Value {
	props := map[quad.Value][]quad.Value{}
	for _, q := range qs {
		if q.Subject == node {
			props[q.Predicate] = append(props[q.Predicate], q.Object)
		}
	}
	return props
}

// rebuildTable stages, in tx, the rows of the teams of l (a complete listing
// read under tx's Update) in place of old, the table's rows, and stamps the
// table current.
func (m *Manager) rebuildTable(tx *cortex.Tx, l listing, old []cortex.SideRow) {
	had := make(map[string][]quad.Value, len(old))
	for _, r := range old {
		had[r.Key] = r.Vals
	}
	keep := make(map[string]bool, len(l.ids))
	for i, id := range l.ids {
		if id == "" {
			continue
		}
		keep[id] = true
		row := make([]quad.Value, nListFields)
		for f, j := range l.slots[i] {
			if j >= 0 {
				row[f] = l.vals[j]
			}
		}
		if prev, ok := had[id]; !ok || !slices.Equal(prev, row) {
			tx.PutSide(teamTable, id, row)
		}
	}
	for _, r := range old {
		if !keep[r.Key] {
			tx.DeleteSide(teamTable, r.Key)
		}
	}
	tx.StampSide(teamTable)
}
