// Package client reaches a Cortex server (cortexctl serve, or a host that
// serves its store with package server) over its JSON-RPC and SPARQL
// routes.
//
//	c, err := client.New("unix:///home/me/.local/share/cortex/cortex.sock",
//		client.DefaultOptions().WithNamespace("acme"))
//	team, err := c.CreateTeam(ctx, teammanager.TeamConfig{Name: "review", Members: ...})
//
// A *Client satisfies api.TeamManager, as the embedded *teammanager.Manager
// does: a host switches between embedded and remote by changing the
// constructor. Errors map back to the same sentinel errors
// (errors.Is(err, teammanager.ErrUnknownTeam)), restored from the error
// data the server sends (its exit code, kind and error names; see Error);
// an error of the connection matches api.ErrUnavailable.
//
// # Concurrency
//
// A Client is safe for concurrent use; it holds no state but its HTTP
// connections.
//
// # Caveats
//
// Through a server, what the JSON shapes of package api carry is what
// comes back: a team's timeout in whole seconds (CreateTeam refuses a
// TeamConfig.Timeout that is not one), and the terms and times as the
// server wrote them. ImportFindings reads its reader whole and sends it in
// one request, which the server bounds (32 MiB by default). Facts first
// runs the team's due merge, as GetTeam does (the server reads the team
// before its facts).
package client
