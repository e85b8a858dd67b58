// Package spec reads, checks and writes agent and team definitions in the
// multi-agent-spec format (../shared/specs/multi-agent-spec in the project's
// notes): agents as Markdown with YAML front matter or as JSON, teams as
// JSON (and YAML or JSON5 for convenience).
//
// Parse, ParseAgent and ParseTeam read one file; Load reads files and whole
// directories and checks them together. Neither stops at the first
// problem: a Report lists every problem (up to MaxProblems of a file, then
// how many more), each with its file, line (where
// the parser knows it: JSON and YAML, not JSON5) and a JSON pointer to the
// value, and Report.Err is a *ValidationError matching ErrInvalid when
// there are errors. MarshalAgent and MarshalTeam write the modern form;
// parsing it gives the same value back.
//
// # Rules
//
// Types, enum values and required fields are the JSON Schemas'. On top of
// them: no duplicate agents, steps, ports, channels, tasks or definitions;
// steps name team agents and known steps; depends_on has no cycle; a port's
// from is "step.output" naming an output of an upstream step (transitively,
// or any earlier step of a chain); required_agreement is in 0..1 and
// max_rounds from 1 to 1000 (MaxMaxRounds); a workflow has at most
// 10,000 steps (MaxSteps); tie_breaker ("lead" allowed), lead, specialists,
// orchestrator and channel participants ("*" allowed) are team agents; a
// crew has a lead or orchestrator, a swarm a task queue or self_claim, a
// council consensus rules. Across files, every agent a team lists and every
// agent a delegation list names is defined ("lead" is allowed in
// can_receive_from), and an unqualified reference resolves to the agent of
// that name when exactly one namespace has it. Names (agents, teams,
// steps, ports, tasks, channels) and a team's version are not blank and
// contain no control characters (the schemas allow any string); an
// agent's name has no '/' (its namespace is names between single '/',
// none "." or "..") and a step's no '.'.
//
// # Real files
//
// Load and ReadFiles read a path only if it is a regular file of at most
// MaxFileSize (16 MiB); anything else is an error of that file. A file
// nests at most 200 levels deep and an object has no duplicate key (JSON5
// files are checked for both before their parser runs; YAML aliases expand
// to at most 100,000 nodes and 16 MiB of text). YAML merge keys (<<: *anchor, or a list of
// anchors) bring in the keys a mapping does not give itself.
//
// A UTF-8 byte order mark at the start of a file is skipped, and
// "$schema" at the top of a file is ignored. The legacy workflow types
// (sequential, parallel, dag, orchestrated), legacy port shapes (outputs as
// a list of names, inputs as a map of name to "step.output") and legacy
// task keys (expectedoutput, humaninloop) are read as their modern form
// with a warning naming it. Unknown keys are warnings, dropped from the
// definition; with Options.Strict they are errors. A Markdown agent's body
// is its instructions (trimmed; a non-empty body replaces front-matter
// instructions, with a warning).
//
// # Concurrency
//
// The package has no state: every function is safe for concurrent use.
// Values returned are owned by the caller.
//
// # Caveats
//
//   - Numbers in free-form values (a port's schema and default) are
//     float64, so integers beyond 2^53 lose precision.
//   - required_agreement 0 is read as the default, 0.5, as the spec's Go
//     SDK and package workflow read it (a warning says so).
//   - An unqualified agent name in a step, lead or tie_breaker matches a
//     qualified team agent when exactly one team agent has that name.
//   - A crew's lead listed among its specialists is a warning, not an
//     error: the schema allows it, but specialists do not delegate, and
//     package workflow refuses to run such a crew.
package spec
