package api

import (
	"context"
	"errors"
	"fmt"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/teammanager"
)

// ManagerConfig is the team manager configuration of namespace n (layout
// x) that cortexctl and the server use: the config file's teams section
// and prefixes, and the delegation rules of the agent definitions stored
// in the namespace (StoredDelegation).
func ManagerConfig(cfg config.Config, n *cortex.Namespace, x namespace.NS) teammanager.Config {
	return teammanager.FromConfig(cfg.Teams).WithPrefixes(cfg.Prefixes).
		WithDelegation(StoredDelegation(defstore.New(n, x)))
}

// StoredDelegation returns the delegation rules of a team member as the
// agent definition stored in ds (cortexctl defs import) under the member's
// agent id gives them: a qualified name, or an unqualified one that one
// namespace of definitions has. A member without a stored definition, or
// whose definition has no delegation section, is not restricted; a name
// that several definitions have is an error (qualify the member's agent
// id). It reads the store on every call, so a definition imported while a
// server runs applies at once; safe for concurrent use.
func StoredDelegation(ds *defstore.Store) teammanager.DelegationFunc {
	return func(ctx context.Context, team, agent string) (teammanager.Delegation, bool, error) {
		d, err := ds.Get(ctx, agent, spec.KindAgent)
		if errors.Is(err, defstore.ErrNotFound) {
			return teammanager.Delegation{}, false, nil
		} else if err != nil {
			return teammanager.Delegation{}, false, fmt.Errorf("delegation rules of %s: %w", agent, err)
		}
		dl := d.Agent.Delegation
		if dl == nil {
			return teammanager.Delegation{}, false, nil
		}
		return teammanager.Delegation{
			AllowDelegation: dl.AllowDelegation,
			CanDelegateTo:   dl.CanDelegateTo,
			CanReceiveFrom:  dl.CanReceiveFrom,
		}, true, nil
	}
}
