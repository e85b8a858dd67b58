// Package api holds what every way of reaching Cortex shares: the JSON
// shapes of teams, members, findings, facts, conflicts, namespaces and
// workflow runs that cortexctl prints with --json and the server's
// JSON-RPC methods take and return (one definition for both, so they
// cannot drift apart), the reading of terms written as text, and the
// classification of errors into cortexctl's exit codes and the kinds the
// server reports.
//
// # Concurrency
//
// The package holds no state; every function is safe for concurrent use.
package api
