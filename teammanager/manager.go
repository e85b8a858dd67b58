package teammanager

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	ns "github.com/cortexgraph/cortex/namespace"
)

// Manager runs agent teams stored as RDF in one namespace of a Cortex store.
// It is safe for concurrent use by multiple goroutines; see the package
// documentation for what is atomic.
type Manager struct {
	n   *cortex.Namespace
	ds  cortex.Dataset // n's id-level reads
	ns  ns.NS
	cfg Config

	listPreds [nListFields]quad.Value // predicates of the listed fields (listPreds)

	mergeLocks teamLocks // per-team serialisation of merges (teamlock.go)
	// mergeWrite lets one merge's write at a time queue for the
	// namespace's write lock (commitMerge): a semaphore of one;
	// mergeWriteWaiting counts the merges waiting for it (for tests).
	mergeWrite        chan struct{}
	mergeWriteWaiting atomic.Int32

	commits committer      // findings waiting for their group commit (commit.go)
	board   boardCommitter // task board and mailbox writes waiting for theirs (boardtx.go)

	cacheMu sync.RWMutex
	cache   map[eval.ID]quad.Value // term ids → terms (ids of committed writes are never reused)

	// readOnly is set by New when the store is read-only (and by a merge
	// that meets cortex.ErrReadOnly): due merges are then not retried.
	readOnly atomic.Bool

	// openOwed is set by New with WithOpenWrites(false): the writes of an
	// opening (openWrites) are left to OpenWrites; openMu lets one
	// OpenWrites do them at a time.
	openOwed atomic.Bool
	openMu   sync.Mutex
}

// New returns a Manager over namespace x of store s (the namespace is
// created if needed). cfg is validated once, here. If the namespace's team
// table (teamtable.go) is stale or missing, New rebuilds it, as a listing
// would, when the namespace's write lock is free: a scan of the teams'
// listed fields (a new namespace has none); not with WithOpenWrites(false).
//
// With auto-merge on and a store open for writing (and open writes, see
// WithOpenWrites), New then retries the merges that a previous process
// left interrupted (see "Merges that always
// happen" in the package documentation), best effort: a failure there is
// recorded on its team, not returned. On a read-only store (s.ReadOnly())
// it retries nothing and runs no strategy, and neither do the reads of the
// Manager: its teams read as the store has them.
//
// A nil s is an error matching cortex.ErrInvalidArgument.
func New(ctx context.Context, s *cortex.Store, x ns.NS, cfg Config) (_ *Manager, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if s == nil {
		return nil, fmt.Errorf("team manager: %w: nil store", cortex.ErrInvalidArgument)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// The namespace records its base when created; a base that differs
	// from the recorded one is refused (cortex.ErrBaseMismatch).
	n, err := s.Namespace(ctx, x.Name(), cortex.WithBase(x.Base()))
	if err != nil {
		return nil, err
	}
	m := &Manager{n: n, ds: n.Dataset(), ns: x, cfg: cfg, listPreds: listPreds(x), cache: map[eval.ID]quad.Value{},
		mergeWrite: make(chan struct{}, 1)}
	m.readOnly.Store(s.ReadOnly())
	if cfg.noOpenWrites {
		if _, err := n.SideCurrent(ctx, teamTable); err != nil {
			return nil, err
		}
		m.openOwed.Store(!m.readOnly.Load())
		return m, nil
	}
	if err := m.openWrites(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// openWrites is what New writes when it opens a Manager: it rebuilds a
// stale team table, then retries the interrupted merges.
func (m *Manager) openWrites(ctx context.Context) error {
	current, err := m.n.SideCurrent(ctx, teamTable)
	if err != nil {
		return err
	}
	if !current {
		if _, _, err := m.listRebuilding(ctx, "", false); err != nil {
			return err
		}
	}
	if m.cfg.autoMerge && retryOnOpen && !m.readOnly.Load() {
		m.retryInterrupted(ctx)
	}
	return nil
}

// OpenWrites does, once, what New left undone when opened
// WithOpenWrites(false): it rebuilds a stale team table (as a listing
// would, when the namespace's write lock is free) and, with auto-merge
// on, retries the merges that a previous process left interrupted, best
// effort, as New does. A host that opened the Manager for a caller that
// may not write (the server, on a read token's first request in a
// namespace) calls it when a caller that may write first comes, so that
// those merges do not wait for a write to their team, a Sweep or a
// GetTeam of it. It returns at once, and does nothing, once it has
// returned nil, when New did those writes, on a read-only store, and
// while another call of it runs; an error (of the table's rebuild, or
// ctx's) leaves them for the next call.
func (m *Manager) OpenWrites(ctx context.Context) (err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if !m.openOwed.Load() || !m.openMu.TryLock() {
		return nil
	}
	defer m.openMu.Unlock()
	if !m.openOwed.Load() || m.readOnly.Load() {
		return nil
	}
	if err := m.openWrites(ctx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // retryInterrupted stopped: the next call goes on
	}
	m.openOwed.Store(false)
	return nil
}

// retryOnOpen lets tests open a Manager without New's retries (see
// SetRetryOnOpen).
var retryOnOpen = true

// retryInterrupted is New's best-effort retry of the merges a previous
// process left interrupted (see "Merges that always happen" in the package
// documentation). Its errors are dropped: a merge that fails again is
// recorded as failed on its team, and one that cannot even be recorded
// (a read-only store, a cancelled context) stays interrupted.
func (m *Manager) retryInterrupted(ctx context.Context) {
	ids, err := m.pendingMerges(ctx, true)
	if err != nil {
		return
	}
	for _, id := range ids {
		if ctx.Err() != nil {
			return
		}
		m.retryMerge(ctx, id) //nolint:errcheck // best effort, recorded on the team
	}
}

// Namespace returns the IRI layout the manager writes with.
func (m *Manager) Namespace() ns.NS { return m.ns }

// Strategies lists the merge strategies teams may use, sorted.
func (m *Manager) Strategies() []string { return m.cfg.Strategies() }

func (m *Manager) now() time.Time { return m.cfg.now().UTC() }

// mergeLock returns a handle on the lock that serialises the merges of
// team (and what must not interleave with them).
func (m *Manager) mergeLock(team string) teamLock { return m.mergeLocks.get(team) }

func errorf(sentinel error, format string, a ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, a...))
}

// validID reports whether s is a usable team or agent id: 1..64 characters
// of [A-Za-z0-9._@+-].
func validID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._@+-", c) >= 0) {
			return false
		}
	}
	return true
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newTeamID returns "t" followed by 16 random base-32 characters (80 bits).
func newTeamID() string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return "t" + idEncoding.EncodeToString(b[:])
}

// ValidateTeam reports whether CreateTeam of a Manager with config c
// would accept tc, without a store: an error matching ErrInvalidTeam (or
// ErrInvalidConfig for c itself) if not. Callers that create the store or
// namespace for the team check tc with it first, so that bad input creates
// nothing.
func (c Config) ValidateTeam(tc TeamConfig) error {
	if err := c.validate(); err != nil {
		return err
	}
	_, err := c.validateTeam(tc)
	return err
}

func (m *Manager) validate(tc TeamConfig) (TeamConfig, error) { return m.cfg.validateTeam(tc) }

func (c Config) validateTeam(tc TeamConfig) (TeamConfig, error) {
	bad := func(format string, a ...any) (TeamConfig, error) {
		return tc, fmt.Errorf("create team %q: %w", tc.Name, errorf(ErrInvalidTeam, format, a...))
	}
	given := tc.Name
	tc.Name = strings.TrimSpace(tc.Name)
	switch {
	case tc.Name == "" && given == "":
		return tc, fmt.Errorf("create team: %w", errorf(ErrInvalidTeam, "empty name"))
	case tc.Name == "":
		return tc, fmt.Errorf("create team: %w", errorf(ErrInvalidTeam, "name %q is blank", given))
	case tc.ID != "" && !validID(tc.ID):
		return bad("id %q must be 1..64 characters of [A-Za-z0-9._@+-]", tc.ID)
	case len(tc.Members) == 0:
		return bad("no members")
	case len(tc.Members) > c.maxTeamSize:
		return bad("%d members, at most %d allowed", len(tc.Members), c.maxTeamSize)
	case math.IsNaN(tc.Threshold) || tc.Threshold < 0 || tc.Threshold > 1:
		return bad("threshold %v not in [0, 1]", tc.Threshold)
	case !utf8.ValidString(tc.Name):
		return bad("name is not valid UTF-8")
	case !utf8.ValidString(tc.Context):
		return bad("context is not valid UTF-8")
	}
	if tc.Strategy == "" {
		tc.Strategy = c.defaultStrategy
	}
	if _, err := c.lookup(tc.Strategy); err != nil {
		return tc, fmt.Errorf("create team %q: %w: %w", tc.Name, ErrInvalidTeam, err)
	}
	seen := map[string]bool{}
	for _, mc := range tc.Members {
		if !validID(mc.AgentID) {
			return bad("agent id %q must be 1..64 characters of [A-Za-z0-9._@+-]", mc.AgentID)
		}
		if seen[mc.AgentID] {
			return bad("agent %q listed twice", mc.AgentID)
		}
		if !utf8.ValidString(mc.Role) || !utf8.ValidString(mc.Task) {
			return bad("agent %q: role or task is not valid UTF-8", mc.AgentID)
		}
		seen[mc.AgentID] = true
	}
	if tc.TieBreaker != "" && !seen[tc.TieBreaker] {
		return bad("tie-breaker %q is not a member", tc.TieBreaker)
	}
	switch {
	case tc.Timeout == 0:
		tc.Timeout = c.workflowTimeout
	case tc.Timeout < 0:
		tc.Timeout = 0
	}
	return tc, nil
}

// CreateTeam validates tc and writes the team and its members, all pending,
// in one atomic write. It returns the new team.
func (m *Manager) CreateTeam(ctx context.Context, tc TeamConfig) (_ Team, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	tc, err = m.validate(tc)
	if err != nil {
		return Team{}, err
	}
	var team Team
	err = m.commit(ctx, func(tx *cortex.Tx) error {
		id := tc.ID
		for attempt := 0; ; attempt++ {
			if tc.ID == "" {
				id = newTeamID()
			}
			exists, err := m.exists(ctx, id)
			if err != nil {
				return err
			}
			if !exists {
				break
			}
			if tc.ID != "" {
				return fmt.Errorf("create team %q: %w", id, ErrTeamExists)
			}
			if attempt == 8 {
				return fmt.Errorf("create team: no free id after %d attempts", attempt+1)
			}
		}
		now := m.now()
		team = Team{
			ID: id, Name: tc.Name, Context: tc.Context, Strategy: tc.Strategy, Status: Pending,
			CreatedAt: now, UpdatedAt: now, Timeout: tc.Timeout, Threshold: tc.Threshold, TieBreaker: tc.TieBreaker,
		}
		for _, mc := range tc.Members {
			team.Members = append(team.Members, Member{
				AgentID: mc.AgentID, Role: mc.Role, Task: mc.Task, Critical: mc.Critical, Status: Pending, JoinedAt: now,
			})
		}
		sortMembers(team.Members)
		team.Lifecycle = lifecycleOf(&team)
		qs := m.teamQuads(&team)
		tx.Add(qs...)
		m.pinTeam(tx, id, qs)
		m.putTeamRow(tx, id, nodeProps(m.ns.Team(id), qs))
		created := team
		created.Members = slices.Clone(team.Members)
		return m.stageEvents(ctx, tx, now, []Event{{Type: EventTeamCreated, Team: id, TeamState: &created}})
	})
	if err != nil {
		return Team{}, err
	}
	return team, nil
}

func (m *Manager) exists(ctx context.Context, id string) (bool, error) {
	qs, err := m.n.Quads(ctx, cortex.Pattern{
		Subject: m.ns.Team(id), Predicate: ns.RDFType, Object: m.ns.IRI(ns.ClassTeam),
		Graph: m.ns.TeamGraph(id), Scope: cortex.OneGraph,
	})
	return len(qs) > 0, err
}

// GetTeam returns team id with its members. A team running past its timeout
// is reported failed (FailTimeout) even if no write has recorded it yet;
// if it has a completed member (and auto-merge is on) its merge is due,
// and until it is recorded the team reads as not merged with MergePending
// MergeTimeout.
//
// With auto-merge on, on a store open for writing, GetTeam is a retry
// point of due merges (see "Merges that always happen" in the package
// documentation), for the two kinds that a read may settle
// (Team.ReadRetriesMerge): an interrupted merge is run again, and the
// timeout of a team with completed members is recorded, with the marker of
// its due merge, in one atomic write, then the team is merged. Both run
// under ctx, the strategy bounded by AutoMergeTimeout, before GetTeam returns the team
// as it then reads. A merge
// that fails is recorded (MergeFailed, unless ctx ended), and GetTeam
// still returns the team, reading as not merged; a failed merge is not
// retried by reads (Sweep, the next write to the team and
// MergeTeamResults retry it). GetTeam never waits for a merge of the team
// that runs in another goroutine (or for anything else that holds the
// team's merge lock): it then returns the team as stored (reading as not
// merged until that merge has written). On a read-only store it
// retries nothing. A retry makes GetTeam as slow as a merge. A caller that
// may not write reads with PeekTeam, which never retries.
func (m *Manager) GetTeam(ctx context.Context, id string) (_ Team, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	t, err := m.readTeamNow(ctx, id)
	if err != nil || !m.retriesOnRead(&t) {
		return t, err
	}
	mu := m.mergeLock(id)
	if !mu.TryLock() {
		return t, nil // a merge of the team is running
	}
	defer mu.Unlock()
	// Read again under the lock: a merge may have ended since.
	if t, err = m.readTeamNow(ctx, id); err != nil || !m.retriesOnRead(&t) {
		return t, err
	}
	if t.MergePending == MergeTimeout {
		st, _, err := m.write(ctx, id, "-", func(*teamState, *cortex.Tx, time.Time) error { return errTimeoutRecorded })
		if err != nil || st.team.MergePending != MergeInterrupted {
			return m.readTeamNow(ctx, id) // recorded by another writer since, or not recordable now
		}
	}
	m.retryMergeLocked(ctx, id) //nolint:errcheck // recorded on the team, which is read again
	return m.readTeamNow(ctx, id)
}

// PeekTeam is GetTeam for a caller that may not write (a read-only token
// of the server, a host that serves reads): it returns team id as GetTeam
// would before any retry, and never writes or runs a merge strategy. A
// due merge is reported, not run: the team reads as not merged, with
// MergePending MergeInterrupted, MergeFailed, or MergeTimeout for a team
// that has timed out with a completed member and whose timeout no write
// has recorded yet (it reads as failed, FailTimeout, all the same). On a
// read-only store, or with auto-merge off, it reads as GetTeam does.
func (m *Manager) PeekTeam(ctx context.Context, id string) (_ Team, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	return m.readTeamNow(ctx, id)
}

// errTimeoutRecorded stops GetTeam's write of a timeout that another
// writer has recorded since GetTeam read the team: there is nothing to
// write.
var errTimeoutRecorded = errors.New("timeout already recorded")

// retriesOnRead reports whether GetTeam retries t's due merge now.
func (m *Manager) retriesOnRead(t *Team) bool {
	return m.cfg.autoMerge && !m.readOnly.Load() && t.ReadRetriesMerge()
}

// ReadRetriesMerge reports whether t has a due merge that a read retries:
// with auto-merge on, on a store open for writing, GetTeam (and
// IsTeamComplete) runs a MergeInterrupted merge again, and records and
// runs a MergeTimeout one. A MergeFailed merge is retried by Sweep, the
// next write to the team and MergeTeamResults, not by reads (so that
// reads do not run a failing merge again and again); one that failed at
// AutoMergeTimeout by MergeTeamResults only.
func (t *Team) ReadRetriesMerge() bool {
	return t.MergePending == MergeInterrupted || t.MergePending == MergeTimeout
}

// readTeamNow is getTeam that also reports, on a team that has timed out
// with a completed member (and auto-merge on) but whose timeout no write
// has recorded, the merge that recording it makes due: Merged false and
// MergePending MergeTimeout.
func (m *Manager) readTeamNow(ctx context.Context, id string) (Team, error) {
	st, err := m.readTeam(ctx, m.ds, id, "")
	if err != nil {
		return Team{}, err
	}
	t := &st.team
	if applyTimeout(t, m.now()) && m.cfg.autoMerge && hasCompleted(t) {
		t.Merged, t.MergePending, t.MergeError, t.MergeErrorKind = false, MergeTimeout, "", ""
	}
	return *t, nil
}

// getTeam is GetTeam without the retry of a due merge, and without the
// MergeTimeout of a timeout not yet recorded: for callers that hold a
// merge lock or the namespace's write lock, for merges, and for reads that
// do not report merge state.
func (m *Manager) getTeam(ctx context.Context, id string) (Team, error) {
	st, err := m.readTeam(ctx, m.ds, id, "")
	if err != nil {
		return Team{}, err
	}
	applyTimeout(&st.team, m.now())
	return st.team, nil
}

// IsTeamComplete reports whether the team is finished: completed or failed
// (including by timeout). It reads the team with GetTeam, so it retries
// the same due merges; Finished of PeekTeam's status is the same answer
// without them.
func (m *Manager) IsTeamComplete(ctx context.Context, id string) (bool, error) {
	t, err := m.GetTeam(ctx, id)
	if err != nil {
		return false, err
	}
	return Finished(t.Status), nil
}

// update runs fn on the team's state inside an atomic read-modify-write and
// writes what fn staged. If the team has timed out, the failure is written
// and ErrTeamFinished returned without calling fn. If a merge is due after
// it (see updateMerging), it runs before update returns.
func (m *Manager) update(ctx context.Context, id, focus string, fn func(st *teamState, tx *cortex.Tx, now time.Time) error) (*teamState, error) {
	st, _, err := m.updateMerging(ctx, id, focus, fn)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// AutoMergeTimeout bounds the run of the strategy of every automatic
// merge (see "Merges that always happen" in the package documentation):
// the merge that a write runs (after the member update that finished the
// team, or after a write that recorded a timeout or met a due merge),
// which runs detached from the caller's context (context.WithoutCancel)
// so that a cancelled caller cannot leave the team unmerged, and the
// retries of New, GetTeam and Sweep, which run under the caller's
// context. The bound is for the strategy, a custom one of which may not
// return: it starts when the strategy does, so the time the merge waited
// before (for another merge of the team) does not count, nor the time it
// takes to write after. A merge whose strategy this bound stops is
// recorded as failed (MergeFailed, with MergeErrorKind
// MergeErrorKindTimeout and a MergeError that says it timed out) and is
// not run again by any retry point: only MergeTeamResults (`cortexctl
// teams merge`), which has no bound of its own, runs it again.
//
// The waits of an automatic merge are bounded by AutoMergeTimeout too,
// each on its own, so that a merge detached from its caller cannot wait
// for ever: the wait for another merge of the team (one by hand, say),
// after which the merge gives up without running (the team stays as it
// was, its merge due), and its write (the wait for the namespace's write
// lock included), after which the merge is recorded as failed with
// MergeErrorKindError, and retried. MergeTeamResults by hand is not
// bounded.
const AutoMergeTimeout = 10 * time.Minute

// autoMergeTimeout is AutoMergeTimeout; tests shorten it.
var autoMergeTimeout = AutoMergeTimeout

// autoMergeBound returns ctx bounded by autoMergeTimeout, ending with
// cause when it reaches it: the bound of one phase of an automatic merge
// (the wait for the team's merge lock, the strategy's run, the write).
// Tests replace it to drive the bounds with their clock.
var autoMergeBound = func(ctx context.Context, cause error) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, autoMergeTimeout, cause)
}

// autoMergeTimeoutError is the cause of the end of the context of an
// automatic merge's strategy at autoMergeTimeout.
type autoMergeTimeoutError struct{ after time.Duration }

func (e *autoMergeTimeoutError) Error() string {
	return fmt.Sprintf("%s after %v (AutoMergeTimeout)", mergeTimedOutText, e.after)
}

// autoMergeWaitError is the cause of the end of the context of an
// automatic merge's wait (for what) at autoMergeTimeout.
type autoMergeWaitError struct {
	after time.Duration
	what  string
}

func (e *autoMergeWaitError) Error() string {
	return fmt.Sprintf("automatic merge gave up waiting for %s after %v (AutoMergeTimeout)", e.what, e.after)
}

// mergeTimedOutText begins the MergeError recorded for an automatic merge
// stopped at autoMergeTimeout, with kind MergeErrorKindTimeout; an older
// version recorded the text alone (see mergeErrorKind).
const mergeTimedOutText = "automatic merge timed out"

// strategyTimedOut reports whether err, a merge's, is that of an
// automatic merge whose strategy was stopped at autoMergeTimeout.
func strategyTimedOut(err error) bool {
	var te *autoMergeTimeoutError
	return errors.As(err, &te)
}

// mergeTimedOut reports whether t's due merge failed last because an
// automatic merge was stopped at AutoMergeTimeout: no retry point runs it
// again (only MergeTeamResults does).
func (t *Team) mergeTimedOut() bool {
	return t.MergePending == MergeFailed && t.MergeErrorKind == MergeErrorKindTimeout
}

// updateMerging is update that also returns the state read (nil only if
// the team could not be read) when fn fails, and the report of the merge
// it ran. With auto-merge on, once the write is done (or refused because
// the team is finished), a merge is due if the write finished the team
// with completed members (it recorded the marker, see markMergeDue) or the
// team already had one pending (a write is one of the retry points): it
// runs then, detached from ctx and bounded by AutoMergeTimeout. A failed
// merge is an *AutoMergeError, joined to the write's own error if any.
func (m *Manager) updateMerging(ctx context.Context, id, focus string, fn func(st *teamState, tx *cortex.Tx, now time.Time) error) (*teamState, *MergeReport, error) {
	st, timedOut, err := m.write(ctx, id, focus, fn)
	return m.afterWrite(ctx, id, st, timedOut, err)
}

// afterWrite is what updateMerging does once the write (write's results)
// is done: the error for a timeout it recorded, and the merge that is due.
func (m *Manager) afterWrite(ctx context.Context, id string, st *teamState, timedOut bool, err error) (*teamState, *MergeReport, error) {
	if st == nil {
		return nil, nil, err
	}
	if timedOut {
		err = fmt.Errorf("team %s: %w: timed out at %s", IDText(id), ErrTeamFinished, st.team.CompletedAt.Format(time.RFC3339))
	}
	if !m.cfg.autoMerge || st.team.MergePending == "" || st.team.mergeTimedOut() || err != nil && !errors.Is(err, ErrTeamFinished) {
		return st, nil, notMergedHint(err, &st.team)
	}
	rep, merr := m.retryMerge(context.WithoutCancel(ctx), id)
	if merr != nil {
		if err != nil {
			return st, nil, fmt.Errorf("%w; %w", err, merr)
		}
		return st, nil, merr
	}
	t := &st.team
	t.Merged, t.MergePending, t.MergeError, t.MergeErrorKind, t.LastMerge = true, "", "", "", rep.MergeID
	return st, rep, err
}

// notMergedHint adds to err, when it says that t is finished, that t is
// not merged yet and how to merge it; other errors are returned as they are.
func notMergedHint(err error, t *Team) error {
	if err == nil || t.MergePending == "" || !errors.Is(err, ErrTeamFinished) {
		return err
	}
	reason := t.MergePending
	if t.MergeError != "" {
		reason += ": " + t.MergeError
	}
	return fmt.Errorf("%w (not merged yet, %s: run `cortexctl teams merge %s`)", err, reason, t.ID)
}

// retryMerge runs a merge of team id that is due: MergeTeamResults, which
// clears the team's marker when it succeeds. If it fails, the failure is
// recorded on the team (MergeFailed and the error) unless ctx has ended
// (then the team is left as it was), and returned as an *AutoMergeError.
//
// On a read-only store (known by New, or found out by a write that met
// cortex.ErrReadOnly) it fails at once, without merging.
//
// The wait for the team's merge lock (another merge of the team runs) is
// bounded by AutoMergeTimeout, and so are the strategy's run and the
// write, each on its own (see AutoMergeTimeout).
func (m *Manager) retryMerge(ctx context.Context, id string) (*MergeReport, error) {
	wctx, cancel := autoMergeBound(ctx, &autoMergeWaitError{autoMergeTimeout, "another merge of the team"})
	mu := m.mergeLock(id)
	if err := mu.LockContext(wctx); err != nil {
		err = ctxcause.With(wctx, fmt.Errorf("merge team %s: %w", IDText(id), err))
		cancel()
		return nil, &AutoMergeError{Team: id, Err: err}
	}
	cancel()
	defer mu.Unlock()
	return m.retryMergeLocked(ctx, id)
}

// retryMergeLocked is retryMerge for a caller that holds the team's merge
// lock: an automatic merge (see AutoMergeTimeout). A merge whose strategy
// was stopped at its bound is recorded as failed with
// MergeErrorKindTimeout (mergeTimedOut), and its MergeError says so.
func (m *Manager) retryMergeLocked(ctx context.Context, id string) (*MergeReport, error) {
	if m.readOnly.Load() {
		return nil, &AutoMergeError{Team: id, Err: fmt.Errorf("merge team %s: %w", IDText(id), cortex.ErrReadOnly)}
	}
	rep, raw := m.mergeLocked(ctx, id, true)
	err := ctxcause.With(ctx, raw)
	if err == nil {
		return &rep, nil
	}
	ame := &AutoMergeError{Team: id, Err: err}
	switch {
	case errors.Is(err, cortex.ErrReadOnly):
		m.readOnly.Store(true)
	case errors.Is(err, ErrUnknownTeam):
	case ctx.Err() != nil:
		// The caller's context ended: the team stays as it was.
	case strategyTimedOut(raw):
		cause := fmt.Errorf("%s, not retried automatically: %w", mergeTimedOutText, raw)
		if m.recordMergeFailure(ctx, id, MergeErrorKindTimeout, cause) == nil {
			ame.timedOut = true
		}
	default:
		m.recordMergeFailure(ctx, id, MergeErrorKindError, err) //nolint:errcheck // best effort: the team stays pending either way
	}
	return nil, ame
}

// maxMergeErrorLen bounds the error text recorded on a team.
const maxMergeErrorLen = 1000

// recordMergeFailure records, if team id still has a due merge, that its
// last attempt failed with cause, of kind (MergeErrorKindTimeout or
// MergeErrorKindError). It writes nothing if that is already recorded.
func (m *Manager) recordMergeFailure(ctx context.Context, id, kind string, cause error) error {
	msg := cause.Error()
	if len(msg) > maxMergeErrorLen {
		msg = strings.ToValidUTF8(msg[:maxMergeErrorLen], "") + "…"
	}
	return m.n.Update(ctx, func(tx *cortex.Tx) error {
		st, err := m.readTeam(ctx, tx.Namespace().Dataset(), id, "-")
		if err != nil {
			return err
		}
		if st.team.MergePending == "" || st.team.MergePending == MergeFailed && st.team.MergeError == msg &&
			st.get(st.node, m.ns.IRI(ns.TeamMergeErrorKind)) == quad.Value(ns.String(kind)) {
			return nil // merged meanwhile, or nothing new
		}
		st.set(st.node, m.ns.IRI(ns.TeamMergePending), ns.String(MergeFailed))
		st.set(st.node, m.ns.IRI(ns.TeamMergeError), ns.String(msg))
		st.set(st.node, m.ns.IRI(ns.TeamMergeErrorKind), ns.String(kind))
		tx.Remove(st.rm...)
		tx.Add(st.add...)
		m.pinTeam(tx, id, st.add)
		m.putTeamRow(tx, id, st.props[st.node])
		return nil
	})
}

// pendingMerges returns the ids of the teams whose merge is due, sorted:
// every such team, or only those whose due merge is MergeInterrupted. It
// reads one index range (the teams that carry the marker), not every team.
func (m *Manager) pendingMerges(ctx context.Context, onlyInterrupted bool) ([]string, error) {
	ids, err := m.ds.IDs(ctx, []quad.Value{m.ns.IRI(ns.TeamMergePending), ns.String(MergeInterrupted)})
	if err != nil {
		return nil, err
	}
	p := eval.Pattern{P: ids[0], Scope: eval.NamedGraphs}
	if onlyInterrupted {
		p.O = ids[1]
	}
	if p.P == 0 || onlyInterrupted && p.O == 0 {
		return nil, nil
	}
	var want []eval.ID
	if err := scan(ctx, m.ds, p, func(q eval.Quad) { want = append(want, q.S, q.G) }); err != nil {
		return nil, err
	}
	vals, err := m.ds.TermsBatch(ctx, want)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; i+1 < len(vals); i += 2 {
		iri, _ := vals[i].(quad.IRI)
		ref, err := m.ns.Parse(iri)
		if err != nil || ref.Kind != ns.KindTeam || vals[i+1] != quad.Value(m.ns.TeamGraph(ref.Team)) {
			continue // a look-alike outside a team graph
		}
		out = append(out, ref.Team)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// write is the atomic read-modify-write of update. It returns the state
// read (also when fn fails; nil if the team could not be read) and whether
// the team timed out (the failure was then written, fn not called).
func (m *Manager) write(ctx context.Context, id, focus string, fn func(st *teamState, tx *cortex.Tx, now time.Time) error) (*teamState, bool, error) {
	var (
		st       *teamState
		timedOut bool
	)
	err := m.commit(ctx, func(tx *cortex.Tx) error {
		var err error
		st, err = m.readTeam(ctx, tx.Namespace().Dataset(), id, focus)
		if err != nil {
			return err
		}
		before := st.team.Status
		now := m.now()
		if m.persistTimeout(st, now) {
			timedOut = true
		} else if err := fn(st, tx, now); err != nil {
			return err
		}
		tx.Remove(st.rm...)
		tx.Add(st.add...)
		m.pinTeam(tx, id, st.add)
		m.putTeamRow(tx, id, st.props[st.node])
		evs := st.events
		if st.team.Status != before {
			evs = append(evs, statusEvent(&st.team))
		}
		return m.stageEvents(ctx, tx, now, evs)
	})
	return st, timedOut && err == nil, err
}

// transitions lists the member status changes UpdateMemberStatus accepts.
// running → running records progress (a new result) without a status change.
var transitions = map[Status][]Status{
	Pending: {Running, Failed},
	Running: {Running, Completed, Failed},
}

func allowed(from, to Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// MemberUpdate is the outcome of UpdateMemberStatus.
type MemberUpdate struct {
	Team       string
	TeamStatus Status // the team's status after the update
	FailReason string // why the team failed, if it did
	Member     Member // the member after the update
	// Merge is the report of the merge this call ran, with auto-merge on:
	// the automatic merge of the team the update finished with completed
	// members (completed, or failed by a critical member or a timeout it
	// recorded), or a due merge it retried on a finished team.
	Merge *MergeReport
}

// UpdateMemberStatus moves member agentID of team teamID to status and, if
// result is not empty, records it as the member's result. The team's status
// follows in the same atomic write: running when the first member starts,
// completed when every member is completed or failed and at least one
// completed, failed when all failed or a critical member failed.
//
// Accepted changes are pending → running | failed and running → running |
// completed | failed; running → running records progress (a new result).
// Refused changes are typed errors: ErrUnknownTeam, ErrUnknownAgent, a
// *TransitionError (e.g. completed → running), ErrTeamFinished (also when
// the team has just timed out: the failure is then recorded). An
// ErrTeamFinished for a team that is not merged yet names the command that
// merges it.
//
// When the update finishes the team with completed members (it completes,
// or fails because a critical member failed) and auto-merge is on, the
// update records that a merge is due, and the team is merged after the
// update commits, in this call: detached from ctx, so that a cancelled
// ctx cannot leave the team unmerged, within AutoMergeTimeout. A failed
// merge is reported as an *AutoMergeError with the update in place; the
// team then reads as not merged and the merge is retried (see the package
// documentation). A call on a finished team with a due merge retries it
// too.
//
// Concurrent updates and findings share commits (see "Concurrency" in the
// package documentation): a call whose context ends while it waits for its
// turn writes nothing; one whose write has started waits for its commit.
//
// A member that finishes (completed or failed) leaves the team's task
// board in the same write: it is assigned, dispatched and claims no more
// tasks, and its in_progress and pending tasks go back to the queue,
// unassigned (see memberFinished in dispatch.go).
func (m *Manager) UpdateMemberStatus(ctx context.Context, teamID, agentID string, status Status, result string) (_ MemberUpdate, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if !status.Valid() {
		return MemberUpdate{}, fmt.Errorf("team %s: member %s: %w %q", IDText(teamID), IDText(agentID), ErrInvalidStatus, status)
	}
	if !utf8.ValidString(result) {
		return MemberUpdate{}, fmt.Errorf("team %s: member %s: %w: result is not valid UTF-8", IDText(teamID), IDText(agentID), ErrInvalidStatus)
	}
	st, timedOut, err := m.writeGrouped(&groupedWrite{ctx: ctx, team: teamID, agent: agentID,
		update: &memberChange{status: status, result: result}})
	st, rep, err := m.afterWrite(ctx, teamID, st, timedOut, err)
	var up MemberUpdate
	if st != nil {
		up = MemberUpdate{Team: teamID, TeamStatus: st.team.Status, FailReason: st.team.FailReason, Merge: rep}
		if mb, ok := st.team.Member(agentID); ok {
			up.Member = *mb
		}
	}
	return up, err
}

// memberChange is what UpdateMemberStatus changes: the member's status,
// and its result if not empty.
type memberChange struct {
	status Status
	result string
}

// checkMemberChange returns nil if member agent of team st may move to
// u.status now; it stages nothing.
func checkMemberChange(st *teamState, team, agent string, u *memberChange) error {
	mb, err := workingMember(st, team, agent)
	if err != nil {
		return err
	}
	if !allowed(mb.Status, u.status) {
		return &TransitionError{Team: team, Agent: agent, From: mb.Status, To: u.status}
	}
	return nil
}

// memberChangeHook, when set (by tests), runs in applyMemberChange once it
// has staged part of the change; an error it returns is the change's.
var memberChangeHook func(team, agent string) error

// applyMemberChange stages, in st and tx, the change u of member agent
// (checkMemberChange passed; st was read with agent in focus) and what
// follows from it: the team's status, the board's changes when the member
// finishes, the merge marker when the team finishes, and their events
// (in st.events). An error leaves st and tx partly staged: the write must
// be abandoned.
func (m *Manager) applyMemberChange(ctx context.Context, tx *cortex.Tx, st *teamState, agent string, u *memberChange, now time.Time) error {
	t := &st.team
	mb, _ := t.Member(agent)
	x := m.ns
	node := st.members[agent]
	mb.Status = u.status
	st.set(node, x.IRI(ns.MemberStatus), ns.String(string(u.status)))
	if u.result != "" {
		mb.Result = u.result
		st.set(node, x.IRI(ns.MemberResult), ns.String(u.result))
	}
	if memberChangeHook != nil {
		if err := memberChangeHook(t.ID, agent); err != nil {
			return err
		}
	}
	if Finished(u.status) {
		mb.CompletedAt = now
		st.setTime(node, ns.MemberCompletedAt, now, x)
		if err := m.memberFinished(ctx, tx, st, agent, u.status, now, &st.events); err != nil {
			return err
		}
	}
	before := t.Status
	t.Status, t.FailReason = derive(t)
	if t.Status != Pending && t.StartedAt.IsZero() {
		t.StartedAt = now
	}
	if Finished(t.Status) {
		t.CompletedAt = now
	}
	t.UpdatedAt = now
	m.writeTeamStatus(st)
	if !Finished(before) && Finished(t.Status) {
		m.markMergeDue(st)
	}
	st.events = append(st.events, Event{Type: EventMemberStatus, Team: t.ID,
		Member: &MemberUpdate{Team: t.ID, TeamStatus: t.Status, FailReason: t.FailReason, Member: *mb}})
	return nil
}

// Sweep records the failure of every running team that has passed its
// timeout and returns their ids. Reads already report such teams as failed;
// Sweep makes it durable (a host may call it periodically). A timed-out
// team with completed members is then merged (with auto-merge on; it stays
// failed with FailTimeout, and the merge report's Missing lists the
// members that did not complete).
//
// With auto-merge on, Sweep then retries every other due merge
// (interrupted or failed, see Team.MergePending) under ctx, each bounded
// by AutoMergeTimeout, but for merges stopped at that bound before (only
// MergeTeamResults runs those again): each team's merge runs at most once
// per Sweep. Merges that fail do not stop it:
// their *AutoMergeErrors (one per team) are joined in the error it
// returns, beside the ids.
func (m *Manager) Sweep(ctx context.Context) (_ []string, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	teams, err := m.listTeams(ctx, Running, false, true)
	if err != nil {
		return nil, err
	}
	now := m.now()
	var (
		out  []string
		errs []error
		// tried holds the teams whose merge the loop below ran (the
		// write that records a timeout merges): not retried again.
		tried = map[string]bool{}
	)
	for _, t := range teams {
		if exp := expiry(&t); exp.IsZero() || now.Before(exp) {
			continue
		}
		tried[t.ID] = true
		_, err := m.update(ctx, t.ID, "-", func(*teamState, *cortex.Tx, time.Time) error { return nil })
		var ame *AutoMergeError
		if errors.As(err, &ame) {
			errs = append(errs, ame)
		}
		switch {
		case errors.Is(err, ErrTeamFinished):
			out = append(out, t.ID)
		case errors.Is(err, ErrUnknownTeam):
		case err != nil:
			return out, errors.Join(append(errs, err)...)
		}
	}
	if m.cfg.autoMerge {
		ids, err := m.pendingMerges(ctx, false)
		if err != nil {
			return out, errors.Join(append(errs, err)...)
		}
		for _, id := range ids {
			if tried[id] {
				continue
			}
			if t, err := m.getTeam(ctx, id); err == nil && t.mergeTimedOut() {
				continue // stopped at AutoMergeTimeout: by hand only
			}
			if _, err := m.retryMerge(ctx, id); err != nil && !errors.Is(err, ErrUnknownTeam) {
				errs = append(errs, err)
			}
		}
	}
	return out, errors.Join(errs...)
}

// teamGraphs returns the graphs of team id with members ms: shared,
// provenance, conflicts, its fact sets, its members' findings, task board,
// mail, plan and, last, its state graph.
func (m *Manager) teamGraphs(ctx context.Context, id string, ms []Member) ([]quad.Value, error) {
	prov := m.ns.ProvenanceGraph(id)
	graphs := []quad.Value{m.ns.SharedGraph(id), prov, m.ns.ConflictGraph(id)}
	pq, err := m.n.Quads(ctx, cortex.Pattern{Graph: prov, Scope: cortex.OneGraph})
	if err != nil {
		return nil, err
	}
	seen := map[quad.Value]bool{}
	for _, q := range pq {
		if !seen[q.Subject] && m.isFactSet(id, q.Subject) {
			seen[q.Subject] = true
			graphs = append(graphs, q.Subject) // a fact set
		}
	}
	for _, mb := range ms {
		graphs = append(graphs, m.ns.MemberGraph(id, mb.AgentID))
	}
	return append(graphs, m.ns.TaskGraph(id), m.ns.MailGraph(id), m.ns.PlanGraph(id), m.ns.TeamGraph(id)), nil
}

// DeleteTeam removes the team: its state, its members' findings, its shared,
// provenance and conflict graphs and its fact sets, in one atomic step (journaled by the store
// when large, see cortex.Namespace.Apply): readers see the whole team or
// nothing of it, and a crash in the middle leaves the team as it was.
// Only a completed (or failed) or disbanded team is deleted; any other
// fails with ErrTeamActive and deletes nothing.
func (m *Manager) DeleteTeam(ctx context.Context, id string) (err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	mu := m.mergeLock(id)
	mu.Lock()
	defer mu.Unlock()
	err = m.commit(ctx, func(tx *cortex.Tx) error {
		t, err := m.getTeam(ctx, id)
		if err != nil {
			return err
		}
		if t.Lifecycle != LifecycleCompleted && t.Lifecycle != LifecycleDisbanded {
			return fmt.Errorf("team is %s: %w (disband it first, or let it complete)", t.Lifecycle, ErrTeamActive)
		}
		graphs, err := m.teamGraphs(ctx, id, t.Members)
		if err != nil {
			return err
		}
		if err := m.deleteBoard(ctx, tx, id); err != nil {
			return err
		}
		for _, g := range graphs {
			qs, err := m.n.Quads(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph})
			if err != nil {
				return err
			}
			tx.Remove(qs...)
		}
		tx.DeleteSide(teamTable, id)
		tx.KeepSide(teamTable)
		return m.stageEvents(ctx, tx, m.now(), []Event{{Type: EventTeamDeleted, Team: id}})
	})
	if err != nil && !errors.Is(err, ErrUnknownTeam) {
		return fmt.Errorf("delete team %s: %w", IDText(id), err)
	}
	return err
}
