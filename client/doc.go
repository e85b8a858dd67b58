// Package client reaches a Cortex server (cortexctl serve, or a host that
// serves its store with package server) over its JSON-RPC and SPARQL
// routes.
//
//	c, err := client.New("unix:///home/me/.local/share/cortex/cortex.sock",
//		client.DefaultOptions().WithNamespace("acme"))
//	team, err := c.CreateTeam(ctx, teammanager.TeamConfig{Name: "review", Members: ...})
//
// A *Client satisfies api.TeamManager (teams, findings, facts, conflicts,
// and api.TaskBoard: the task board and mailbox), as the embedded
// *teammanager.Manager does: a host switches between embedded and remote by changing the
// constructor. Errors map back to the same sentinel errors
// (errors.Is(err, teammanager.ErrUnknownTeam)), restored from the error
// data the server sends (its exit code, kind and error names; see Error);
// an error of the connection matches api.ErrUnavailable. Error messages
// name the server's URL without the password of its user info.
//
// # Connections
//
// The JSON-RPC calls of a Client share one JSON-RPC stream (see "JSON-RPC
// streams" in package server's rpcstream.go): a connection that carries the calls of
// every goroutine at once, answered as they are ready, which costs about
// half the CPU of an HTTP request per call. It is opened on the first
// call, again after it breaks (the calls in flight on a broken stream fail
// with api.ErrUnavailable, as they would on a broken HTTP connection; one
// the server had read may have run), and closed after 30 s without calls
// or by Close. A server that closes the stream on its own (its idle
// timeout, a shutdown) says "$/closing" after answering every call it
// read: a call still unanswered then did not run, and is sent again,
// once, on a new stream, whatever its method; if that fails too, the
// call fails with api.ErrUnavailable. A server ends the stream too,
// without "$/closing", at a line longer than its body limit
// (server.Options.WithMaxBodyBytes, below 1 MiB), after an error of id
// null and the answers of the calls it read before: that call and those
// sent after it, which it did not read, go again as HTTP requests of
// their own, so that the first fails as it would alone ("request body too
// large", kind invalid). A call larger than 1 MiB, every call of a client given an
// HTTP client (WithHTTPClient) or WithRPCStream(false), and every call to
// a server that does not open streams go as HTTP requests; SPARQL,
// imports, exports and events always do. A call whose context ends returns
// at once and asks the server to cancel it. A call whose server has not
// begun to answer it 5 minutes after it was sent (a stalled server;
// Options.WithAnswerTimeout) returns so too, with ErrNoAnswer; the rest
// of an answer (an export, rows, events) is not bounded by it.
//
// # Concurrency
//
// A Client is safe for concurrent use; it holds no state but its
// connections.
//
// # Caveats
//
// Through a server, what the JSON shapes of package api carry is what
// comes back: a team's timeout in whole seconds (CreateTeam refuses a
// TeamConfig.Timeout that is not one), and the terms and times as the
// server wrote them. ImportFindings reads its reader whole and sends it in
// one request, which the server bounds (32 MiB by default, and RDF to its
// maximum of results in triples). Facts first
// runs the team's due merge, as GetTeam does (the server reads the team
// before its facts). The task board's errors that carry data in the
// embedded manager (*teammanager.TaskStateError, *teammanager.CycleError)
// come back as errors matching their sentinels (ErrTaskState,
// ErrTaskCycle) with the server's message, not as those types; board
// durations (lease, staleAfter, mailbox maxAge) travel in seconds. JSON
// carries only UTF-8: a call with a string that is not valid UTF-8 (a
// team name, a role...) fails with ErrNotUTF8 and sends nothing, but for
// an id (of a team, agent, task, message, snapshot, conflict or run,
// also a new team's, its members' and a board's lead) or a word of a
// fixed set (a status, message type, comment kind, merge strategy),
// which is sent with U+FFFD for each bad byte and so refused by the
// server where and as the embedded manager refuses it (a malformed id,
// after the namespace and the team), its message naming it as given,
// or a message's attachment, sent with a stand-in that the server refuses
// where and as the manager refuses the attachment (not an absolute IRI),
// its message naming the attachment as given, or a message's subject or
// body, sent empty so that the server refuses the empty body where the
// manager refuses the text, which comes back as the manager's error for
// the text (SendMessage); a snapshot's note and a plan's text fail with the manager's error; the
// methods of a team, its members, tasks and mail fail so with the
// embedded manager's error and message too (ErrInvalidTeam,
// ErrInvalidStatus, ErrInvalidTask, ErrInvalidMessage; ErrInvalidFinding
// for a finding's literal), though the manager checks text after the team
// and the member: text that is not UTF-8 in a call with another fault may
// fail with another error embedded. A finding's confidence of NaN or
// ±Inf, or a time of a year after 9999 in UTC, which JSON cannot carry
// either, fails with the manager's ErrInvalidFinding, and a team
// threshold of NaN or ±Inf with its ErrInvalidTeam; a workflow run input
// or step output of NaN or ±Inf (Workflows.Start, Workflows.CompleteStep)
// with the workflow Engine's ErrInvalidRun or ErrInvalidOutput. An empty id
// (team, agent, task, message, conflict, snapshot) is an invalid id, as
// embedded (kind invalid, exit code 7, matching teammanager.ErrInvalidID
// and the lookup error of its kind: an empty team id is
// teammanager.ErrUnknownTeam too); of a team that does not exist, it is
// an unknown team, as embedded, whose Manager looks the team up first. In a namespace that does not exist yet on
// the server (no team was ever created in it), a call about a team fails
// with an error matching both cortex.ErrNoNamespace and
// teammanager.ErrUnknownTeam (a call about a snapshot by its id, which
// outlives its team, teammanager.ErrUnknownSnapshot), and ListTeams, LastEventID and Subscribe
// with one matching cortex.ErrNoNamespace (as cortexctl says), where the
// Manager, whose New created the namespace, lists no teams and no events.
package client
