package teammanager

import "github.com/cortexgraph/cortex/cortex"

// KeepTables marks, in tx, the Manager's team table as kept by tx's delta
// (cortex.Tx.KeepSide). A package that writes its own quads in the
// Manager's namespace through cortex.Namespace.Update (package workflow
// does) calls it when its delta touches no team, member, finding, merge or
// conflict quad, so that its writes do not leave the team table stale and
// ListTeams keeps reading the table alone. Calling it for a delta that does
// change team quads makes ListTeams miss that change.
func (m *Manager) KeepTables(tx *cortex.Tx) { tx.KeepSide(teamTable) }
