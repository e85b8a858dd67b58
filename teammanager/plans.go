package teammanager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	ns "github.com/cortexgraph/cortex/namespace"
)

// Plans.
//
// A team's plan is the lead's: a title and ordered steps, in revisions
// numbered from 1. Each revision moves through
//
//	draft → pending_review → approved | rejected
//
// The lead drafts (DraftPlan: always a new revision, under a number the
// team id's plan never had, not even before a snapshot restore or the
// team's deletion; a revision's title and steps never change once
// drafted) and submits the latest
// (SubmitPlan), or does both in one write (NewPlan.Submit); the board's plan
// approver reviews it (ReviewPlan, naming the revision it read): the
// member named by BoardSettings.PlanApprover, or, when none is named, the
// operator — the person or program driving the team, acting as Operator.
// The lead never reviews its own plan, nor does a revision's author once
// the board has another lead. Every revision is kept (PlanRevisions).
//
// The plan in force is the latest approved revision: drafting and
// submitting a new revision does not withdraw it; approving the new one
// replaces it. With BoardSettings.PlanApproval on, no task is claimed or
// dispatched while no revision is approved (ErrPlanNotApproved). The plan
// in force, whatever the setting, is part of every task that ClaimTask,
// ClaimNext and DispatchUnblocked hand out (Task.Plan), so the member
// works against it.
//
// Storage: a revision is a row of the plans side table (team, revision →
// the Plan as JSON), the record, and RDF in the team's plan graph
// (namespace.NS.PlanGraph) written from it in the same atomic write: the
// plan node (plan:title, plan:state, ...) and a node per step. The board
// row holds the latest revision number and the one in force. Every change
// is a plan.* event.

// planTable is the side table of plan revisions: team, revision → Plan.
const planTable = "plans"

// planSeqTable is the side table of the highest revision number a team
// id's plan ever had: team → it. It is not the team's content (keyed by
// the id alone, it is not in teamSideTables): a snapshot neither copies
// nor restores it and DeleteTeam leaves it, so that no revision number is
// used twice — one a reviewer read never names other content.
const planSeqTable = "planseq"

// idSeqTable is the side table of the highest task and message numbers
// a team id ever had: team → [tasks, messages]. Like planSeqTable it is
// not the team's content: a snapshot neither copies nor restores it and
// DeleteTeam leaves it, so that no task or message number is used twice
// — a worker holding T3, or an agent that read M7, from before a restore
// or the team's deletion never finds other content under that id. The
// board's own counters (boardState.Next, Messages) rewind with a restore;
// a number is taken past both. A restore or a deletion first records the
// board's counters here if the row says less (keepIDSeq: numbers taken
// before the table existed).
const idSeqTable = "idseq"

// PlanState is the approval state of a plan revision.
type PlanState string

// Plan states.
const (
	PlanDraft         PlanState = ns.PlanStateDraft
	PlanPendingReview PlanState = ns.PlanStatePendingReview
	PlanApproved      PlanState = ns.PlanStateApproved
	PlanRejected      PlanState = ns.PlanStateRejected
)

// planMoves is the table of the approval moves of a revision.
var planMoves = map[PlanState][]PlanState{
	PlanDraft:         {PlanPendingReview},
	PlanPendingReview: {PlanApproved, PlanRejected},
}

// Operator is the actor id of the operator, the plan's approver when
// BoardSettings.PlanApprover names no member. (A team with a member whose
// agent id is "operator" should name its approver.)
const Operator = "operator"

// PlanStep is one step of a plan.
type PlanStep struct {
	Title       string `json:"title"` // required
	Description string `json:"description,omitempty"`
}

// NewPlan is a plan revision to draft.
type NewPlan struct {
	Title string     // required
	Steps []PlanStep // at least one, in order
	// Submit submits the new revision for review in the same write that
	// drafts it (DraftPlan): it is pending_review, never left a draft.
	Submit bool
}

// Plan is a revision of a team's plan.
type Plan struct {
	Team        string     `json:"team"`
	Revision    int        `json:"revision"` // from 1
	IRI         quad.IRI   `json:"iri"`      // namespace.NS.Plan
	Title       string     `json:"title"`
	Steps       []PlanStep `json:"steps"`
	State       PlanState  `json:"state"`
	Author      string     `json:"author"`               // the lead that drafted it
	ReviewedBy  string     `json:"reviewedBy,omitempty"` // the approver (an agent id, or Operator) that approved or rejected it
	Feedback    string     `json:"feedback,omitempty"`   // the reviewer's feedback
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	SubmittedAt time.Time  `json:"submittedAt,omitzero"`
	ReviewedAt  time.Time  `json:"reviewedAt,omitzero"`
}

// Limits of a plan.
const (
	MaxPlanSteps = 1000
	maxPlanText  = 64 << 10
)

// Validate returns the error DraftPlan returns for np before it looks at
// the team (wrapping ErrInvalidPlan), or nil: an empty title, no steps or
// too many, text too long or not valid UTF-8.
func (np NewPlan) Validate() error { return np.validate() }

func (np NewPlan) validate() error {
	switch {
	case strings.TrimSpace(np.Title) == "":
		return errorf(ErrInvalidPlan, "empty title")
	case len(np.Steps) == 0:
		return errorf(ErrInvalidPlan, "no steps")
	case len(np.Steps) > MaxPlanSteps:
		return errorf(ErrInvalidPlan, "%d steps, at most %d", len(np.Steps), MaxPlanSteps)
	case len(np.Title) > maxPlanText:
		return errorf(ErrInvalidPlan, "title of %d bytes, at most %d", len(np.Title), maxPlanText)
	}
	if err := checkText(ErrInvalidPlan, "title", np.Title); err != nil {
		return err
	}
	for i, s := range np.Steps {
		if strings.TrimSpace(s.Title) == "" {
			return errorf(ErrInvalidPlan, "step %d has no title", i+1)
		}
		if !utf8.ValidString(s.Title) || !utf8.ValidString(s.Description) {
			return errorf(ErrInvalidPlan, "step %d is not valid UTF-8", i+1)
		}
		if len(s.Title)+len(s.Description) > maxPlanText {
			return errorf(ErrInvalidPlan, "step %d is longer than %d bytes", i+1, maxPlanText)
		}
	}
	return nil
}

func planKey(team string, rev int) string { return team + " " + pad(rev) }

// approver returns who reviews the board's plan.
func (st *boardState) approver() string {
	if st.Settings.PlanApprover != "" {
		return st.Settings.PlanApprover
	}
	return Operator
}

func mayPlan(st *boardState, by string) error {
	switch {
	case st.Settings.Lead == "":
		return fmt.Errorf("%w: %s may not plan: the board has no lead (ConfigureBoard, or a member with role %q)", ErrNotAllowed, IDText(by), LeadRole)
	case by != st.Settings.Lead:
		return fmt.Errorf("%w: only the lead (%s) drafts and submits the plan, not %s", ErrNotAllowed, st.Settings.Lead, IDText(by))
	}
	return nil
}

func mayReview(st *boardState, by string) error {
	switch want := st.approver(); {
	case by == st.Settings.Lead:
		return fmt.Errorf("%w: the lead (%s) does not review its own plan; %s does", ErrNotAllowed, IDText(by), want)
	case by != want:
		return fmt.Errorf("%w: only %s approves or rejects this board's plan, not %s", ErrNotAllowed, want, IDText(by))
	}
	return nil
}

// DraftPlan drafts a new revision of team teamID's plan, by its lead by
// (ErrNotAllowed otherwise), and returns it. It is always a new revision,
// even when the latest is still a draft: a revision's content never
// changes, so a review naming a revision reviews the content read under
// that number (a replaced draft is kept as it was, a draft no longer the
// latest, which nothing submits or reviews). While the latest revision
// is pending review it fails with ErrPlanState. The plan needs a title and
// at least one step, each with a title (ErrInvalidPlan). The team may be
// paused (planning goes on); a finished or disbanded team refuses it.
//
// With np.Submit the revision is also submitted for review, as SubmitPlan
// would, in the same atomic write: it is written pending_review (its
// events plan.drafted then plan.submitted), or, if any part is refused,
// not at all. DraftPlan then SubmitPlan are two writes: a refusal, an
// ended context or a crash between them leaves the draft unsubmitted.
func (m *Manager) DraftPlan(ctx context.Context, teamID, by string, np NewPlan) (_ Plan, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if err := np.validate(); err != nil {
		return Plan{}, teamErr(teamID, "draft plan", err)
	}
	var out Plan
	err = m.boardWrite(ctx, func(b *boardTx) error {
		p, err := b.draftPlan(teamID, by, np)
		if err == nil {
			out = *p
		}
		return err
	})
	if err != nil {
		return Plan{}, teamErr(teamID, "draft plan", err)
	}
	return out, nil
}

// draftPlan is DraftPlan's write (np validated).
func (b *boardTx) draftPlan(teamID, by string, np NewPlan) (*Plan, error) {
	st, err := b.loadBoard(teamID, true)
	if err != nil {
		return nil, err
	}
	if err := mayPlan(st, by); err != nil {
		return nil, err
	}
	if st.PlanRevs > 0 {
		last, err := b.loadPlan(teamID, st.PlanRevs)
		if err != nil {
			return nil, err
		}
		if last.State == PlanPendingReview {
			return nil, fmt.Errorf("%w: revision %d is pending review (%s reviews it first)", ErrPlanState, last.Revision, st.approver())
		}
	}
	// Always a new revision, even over a draft, and a number never
	// used before (not even by revisions a snapshot restore or the
	// team's deletion removed): a revision's content never changes,
	// so that a review naming it reviews what was read.
	seq, err := b.planSeq(teamID)
	if err != nil {
		return nil, err
	}
	p := &Plan{Team: teamID, Revision: max(st.PlanRevs, seq) + 1, CreatedAt: b.now}
	b.put(planSeqTable, teamID, []quad.Value{quad.String(strconv.Itoa(p.Revision))})
	p.Title, p.Author, p.State, p.UpdatedAt = strings.TrimSpace(np.Title), by, PlanDraft, b.now
	for _, s := range np.Steps {
		p.Steps = append(p.Steps, PlanStep{Title: strings.TrimSpace(s.Title), Description: s.Description})
	}
	st.PlanRevs = p.Revision
	b.saveBoard(teamID, st)
	if np.Submit {
		// As SubmitPlan would move it, in this write: its events
		// are both, the revision's row and quads only the
		// submitted one.
		draft := *p
		draft.IRI = b.m.ns.Plan(p.Team, p.Revision)
		draft.Steps = slices.Clone(p.Steps)
		b.event(Event{Type: EventPlanDrafted, Team: p.Team, Plan: &draft})
		p.State, p.SubmittedAt = PlanPendingReview, b.now
		b.savePlan(nil, p, EventPlanSubmitted)
	} else {
		b.savePlan(nil, p, EventPlanDrafted)
	}
	return p, nil
}

// SubmitPlan submits the latest revision of team teamID's plan, a draft,
// for review: pending_review. Only the lead submits (ErrNotAllowed); a
// revision that is not a draft fails with ErrPlanState, no plan with
// ErrNoPlan.
func (m *Manager) SubmitPlan(ctx context.Context, teamID, by string) (_ Plan, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	p, err := m.movePlan(ctx, teamID, by, 0, PlanPendingReview, "", mayPlan)
	if err != nil {
		return Plan{}, teamErr(teamID, "submit plan", err)
	}
	return p, nil
}

// ReviewPlan approves (approve) or rejects revision rev of team teamID's
// plan, by the board's approver by (BoardSettings.PlanApprover, or
// Operator; ErrNotAllowed otherwise, and for the revision's author). The review names the revision it
// reviews, so that what is approved is what the reviewer read: rev must be
// the latest revision (one the lead has since replaced by a new revision
// fails with ErrPlanState; one the team does not have with ErrNoPlan; rev
// below 1 with ErrInvalidPlan: there is no "latest" shorthand), and it
// must be pending review (ErrPlanState). A revision's title and steps
// never change (a redraft is a new revision), so the revision a review
// names is the content read under that number, as a draft or once
// submitted. A refused review writes nothing. A
// rejection needs feedback (ErrInvalidPlan); the lead then drafts a new
// revision. An approved revision becomes the plan in force: with
// PlanApproval on, tasks may be claimed and dispatched from this write on.
func (m *Manager) ReviewPlan(ctx context.Context, teamID, by string, rev int, approve bool, feedback string) (_ Plan, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if rev < 1 {
		return Plan{}, fmt.Errorf("team %s: review plan: %w: revision %d: a review names the revision it reviews (from 1)", IDText(teamID), ErrInvalidPlan, rev)
	}
	to := PlanApproved
	if !approve {
		to = PlanRejected
		if strings.TrimSpace(feedback) == "" {
			return Plan{}, fmt.Errorf("team %s: review plan: %w: a rejection needs feedback", IDText(teamID), ErrInvalidPlan)
		}
	}
	if err := checkText(ErrInvalidPlan, "feedback", feedback); err != nil {
		return Plan{}, teamErr(teamID, "review plan", err)
	}
	p, err := m.movePlan(ctx, teamID, by, rev, to, feedback, mayReview)
	if err != nil {
		return Plan{}, teamErr(teamID, "review plan", err)
	}
	return p, nil
}

// movePlan moves the latest revision of team's plan to state to, by by
// (checked by may), in one atomic write with its event. rev, if not 0, is
// the revision the caller means: the move fails unless it is the latest.
func (m *Manager) movePlan(ctx context.Context, team, by string, rev int, to PlanState, feedback string, may func(*boardState, string) error) (Plan, error) {
	var out Plan
	err := m.boardWrite(ctx, func(b *boardTx) error {
		st, err := b.loadBoard(team, true)
		if err != nil {
			return err
		}
		if err := may(st, by); err != nil {
			return err
		}
		switch {
		case st.PlanRevs == 0:
			return fmt.Errorf("%w: the lead drafts one first", ErrNoPlan)
		case rev > st.PlanRevs:
			return fmt.Errorf("%w: revision %d (the latest is revision %d)", ErrNoPlan, rev, st.PlanRevs)
		}
		p, err := b.loadPlan(team, st.PlanRevs)
		if err != nil {
			return err
		}
		if rev != 0 && rev != p.Revision {
			return fmt.Errorf("%w: revision %d is not the latest: revision %d is (%s); read it before reviewing it", ErrPlanState, rev, p.Revision, p.State)
		}
		if !slices.Contains(planMoves[p.State], to) {
			return fmt.Errorf("%w: revision %d is %s, cannot move it to %s", ErrPlanState, p.Revision, p.State, to)
		}
		if to != PlanPendingReview && by == p.Author {
			// The lead may have changed since: its former lead, now the
			// approver, still does not review what it drafted.
			return fmt.Errorf("%w: %s drafted revision %d and does not review it", ErrNotAllowed, by, p.Revision)
		}
		old := *p
		p.State, p.UpdatedAt = to, b.now
		typ := EventPlanSubmitted
		switch to {
		case PlanPendingReview:
			p.SubmittedAt = b.now
		case PlanApproved, PlanRejected:
			p.ReviewedBy, p.ReviewedAt, p.Feedback = by, b.now, feedback
			typ = EventPlanRejected
			if to == PlanApproved {
				typ = EventPlanApproved
				st.Plan = p.Revision
				b.saveBoard(team, st)
			}
		}
		b.savePlan(&old, p, typ)
		out = *p
		return nil
	})
	return out, err
}

// GetPlan returns revision rev of team teamID's plan; rev 0 is the latest.
// It fails with ErrNoPlan if there is no such revision. The plan of a
// paused, finished or disbanded team is read as well.
func (m *Manager) GetPlan(ctx context.Context, teamID string, rev int) (_ Plan, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Plan
	err = m.boardRead(ctx, func(b *boardTx) error {
		st, err := b.readBoardRow(teamID)
		if err != nil {
			return err
		}
		if rev == 0 {
			rev = st.PlanRevs
		}
		switch {
		case st.PlanRevs == 0:
			return fmt.Errorf("%w yet: the lead drafts one first", ErrNoPlan)
		case rev < 1 || rev > st.PlanRevs:
			return fmt.Errorf("%w: revision %d (the latest is revision %d)", ErrNoPlan, rev, st.PlanRevs)
		}
		p, err := b.loadPlan(teamID, rev)
		if err == nil {
			out = *p
		}
		return err
	})
	if err != nil {
		return Plan{}, teamErr(teamID, "get plan", err)
	}
	return out, nil
}

// PlanInForce returns the plan in force of team teamID: its latest
// approved revision. It fails with ErrPlanNotApproved if no revision was
// approved.
func (m *Manager) PlanInForce(ctx context.Context, teamID string) (_ Plan, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out *Plan
	err = m.boardRead(ctx, func(b *boardTx) error {
		st, err := b.readBoardRow(teamID)
		if err != nil {
			return err
		}
		out, err = b.planInForce(st, teamID)
		return err
	})
	if err == nil && out == nil {
		err = fmt.Errorf("%w: no revision is approved", ErrPlanNotApproved)
	}
	if err != nil {
		return Plan{}, teamErr(teamID, "plan in force", err)
	}
	return *out, nil
}

// PlanRevisions returns every revision of team teamID's plan, oldest
// first (none: an empty list). A finished or disbanded team's plan is
// still read.
func (m *Manager) PlanRevisions(ctx context.Context, teamID string) (_ []Plan, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if err := m.knownTeam(ctx, teamID); err != nil {
		return nil, err
	}
	out := []Plan{}
	var derr error
	err = m.readBoardRows(ctx, planTable, teamKey(teamID), func(_ string, vals []quad.Value) bool {
		p, err := m.decodePlan(teamID, vals)
		if err != nil {
			derr = err
			return false
		}
		out = append(out, *p)
		return true
	})
	if err == nil {
		err = derr
	}
	if err != nil {
		return nil, teamErr(teamID, "plan revisions", err)
	}
	return out, nil
}

// readBoardRow reads team's board row as it is, whatever the team's
// lifecycle; a team whose board was never written has an empty one.
func (b *boardTx) readBoardRow(team string) (*boardState, error) {
	vals, found, err := b.row(boardTable, team)
	if err != nil {
		return nil, err
	}
	if !found {
		if err := b.m.knownTeam(b.ctx, team); err != nil {
			return nil, err
		}
		return &boardState{}, nil
	}
	var st boardState
	s, _ := vals[0].(quad.String)
	if len(vals) != 1 || json.Unmarshal([]byte(s), &st) != nil {
		return nil, fmt.Errorf("%w: board row of team %s", ErrCorrupt, IDText(team))
	}
	return &st, nil
}

// planGate refuses to hand out task t while the board requires an
// approved plan and none is.
func (b *boardTx) planGate(st *boardState, t *Task) error {
	if !st.Settings.PlanApproval || st.Plan > 0 {
		return nil
	}
	var state string
	if st.PlanRevs > 0 {
		if p, err := b.loadPlan(t.Team, st.PlanRevs); err == nil {
			state = fmt.Sprintf("; revision %d is %s", p.Revision, p.State)
		}
	} else {
		state = "; no plan is drafted yet"
	}
	return fmt.Errorf("task %s: %w: the board hands out tasks once %s approves the lead's plan%s", t.ID, ErrPlanNotApproved, st.approver(), state)
}

// planInForce returns team's plan in force, nil if none.
func (b *boardTx) planInForce(st *boardState, team string) (*Plan, error) {
	if st.Plan == 0 {
		return nil, nil
	}
	return b.loadPlan(team, st.Plan)
}

// planSeq returns the highest revision number team's plan ever had, as
// planSeqTable records it (0: none recorded).
func (b *boardTx) planSeq(team string) (int, error) {
	n, err := b.seqRow(planSeqTable, team, 1)
	if errors.Is(err, errMalformedRow) {
		return 0, fmt.Errorf("%w: plan revision count of team %s", ErrCorrupt, IDText(team))
	} else if err != nil {
		return 0, err
	}
	return n[0], nil
}

// idSeq returns the highest task and message numbers team ever had, as
// idSeqTable records them (0: none recorded).
func (b *boardTx) idSeq(team string) (tasks, messages int, err error) {
	n, err := b.seqRow(idSeqTable, team, 2)
	if errors.Is(err, errMalformedRow) {
		return 0, 0, fmt.Errorf("%w: task and message counts of team %s", ErrCorrupt, IDText(team))
	} else if err != nil {
		return 0, 0, err
	}
	return n[0], n[1], nil
}

// putIDSeq records the highest task and message numbers of team.
func (b *boardTx) putIDSeq(team string, tasks, messages int) {
	b.put(idSeqTable, team, []quad.Value{quad.String(strconv.Itoa(tasks)), quad.String(strconv.Itoa(messages))})
}

// keepIDSeq stages in tx, for a write that rewinds or removes team's
// board (a snapshot restore, the team's deletion), the board's task and
// message counters into idSeqTable where its row records less: a board
// whose numbers were taken before the table (no row) or outside it keeps
// them from being taken again. A board or row that does not decode is
// left as it is.
func (m *Manager) keepIDSeq(ctx context.Context, tx *cortex.Tx, team string) error {
	b := &boardTx{m: m, ctx: ctx, n: tx.Namespace(), now: m.now()}
	b.init()
	st, found, err := b.board(team)
	if errors.Is(err, ErrCorrupt) || err == nil && !found {
		return nil
	} else if err != nil {
		return err
	}
	tasks, msgs, err := b.idSeq(team)
	if errors.Is(err, ErrCorrupt) {
		return nil
	} else if err != nil {
		return err
	}
	if st.Next-1 > tasks || st.Messages > msgs {
		tx.PutSide(idSeqTable, team, []quad.Value{quad.String(strconv.Itoa(max(tasks, st.Next-1))), quad.String(strconv.Itoa(max(msgs, st.Messages)))})
	}
	return nil
}

// errMalformedRow is seqRow's error for a row that is not its numbers.
var errMalformedRow = errors.New("malformed row")

// seqRow reads the row of team in a counter table: want numbers ≥ 0, all
// 0 if there is no row; errMalformedRow if the row is anything else, the
// store's error if it cannot be read.
func (b *boardTx) seqRow(table, team string, want int) ([]int, error) {
	out := make([]int, want)
	vals, found, err := b.row(table, team)
	if err != nil || !found {
		return out, err
	}
	if len(vals) != want {
		return nil, errMalformedRow
	}
	for i, v := range vals {
		s, _ := v.(quad.String)
		n, err := strconv.Atoi(string(s))
		if err != nil || n < 0 {
			return nil, errMalformedRow
		}
		out[i] = n
	}
	return out, nil
}

func (b *boardTx) loadPlan(team string, rev int) (*Plan, error) {
	vals, found, err := b.row(planTable, planKey(team, rev))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: revision %d", ErrNoPlan, rev)
	}
	return b.m.decodePlan(team, vals)
}

func (m *Manager) decodePlan(team string, vals []quad.Value) (*Plan, error) {
	var p Plan
	s, _ := vals[0].(quad.String)
	if len(vals) != 1 || json.Unmarshal([]byte(s), &p) != nil {
		return nil, fmt.Errorf("%w: plan row of team %s", ErrCorrupt, IDText(team))
	}
	p.IRI = m.ns.Plan(team, p.Revision)
	return &p, nil
}

// savePlan writes p (old: as it was, nil for a new revision): its row, its
// quads and an event of type typ.
func (b *boardTx) savePlan(old, p *Plan, typ EventType) {
	p.IRI = b.m.ns.Plan(p.Team, p.Revision)
	j, _ := json.Marshal(p) // plain data: cannot fail
	b.put(planTable, planKey(p.Team, p.Revision), []quad.Value{quad.String(j)})
	var oldQuads []quad.Quad
	if old != nil {
		oldQuads = b.m.planQuads(old)
	}
	b.replaceQuads(oldQuads, b.m.planQuads(p))
	cp := *p
	cp.Steps = slices.Clone(p.Steps)
	b.event(Event{Type: typ, Team: p.Team, Plan: &cp})
}

// planQuads returns the quads of p in its team's plan graph.
func (m *Manager) planQuads(p *Plan) []quad.Quad {
	x := m.ns
	g := x.PlanGraph(p.Team)
	node := x.Plan(p.Team, p.Revision)
	out := make([]quad.Quad, 0, 12+4*len(p.Steps))
	add := func(s quad.Value, t ns.Term, o quad.Value) {
		out = append(out, quad.Quad{Subject: s, Predicate: x.IRI(t), Object: o, Label: g})
	}
	tm := func(t ns.Term, v time.Time) {
		if !v.IsZero() {
			add(node, t, ns.DateTime(v))
		}
	}
	out = append(out, quad.Quad{Subject: node, Predicate: ns.RDFType, Object: x.IRI(ns.ClassPlan), Label: g})
	add(node, ns.PlanTeam, x.Team(p.Team))
	add(node, ns.PlanRevision, ns.Integer(int64(p.Revision)))
	add(node, ns.PlanTitle, ns.String(p.Title))
	add(node, ns.PlanState, ns.String(string(p.State)))
	add(node, ns.PlanAuthor, x.Member(p.Team, p.Author))
	tm(ns.PlanCreatedAt, p.CreatedAt)
	tm(ns.PlanUpdatedAt, p.UpdatedAt)
	tm(ns.PlanSubmittedAt, p.SubmittedAt)
	if p.ReviewedBy != "" {
		add(node, ns.PlanReviewedBy, ns.String(p.ReviewedBy))
	}
	tm(ns.PlanReviewedAt, p.ReviewedAt)
	if p.Feedback != "" {
		add(node, ns.PlanFeedback, ns.String(p.Feedback))
	}
	for i, s := range p.Steps {
		sn := x.PlanStep(p.Team, p.Revision, i+1)
		add(node, ns.PlanHasStep, sn)
		out = append(out, quad.Quad{Subject: sn, Predicate: ns.RDFType, Object: x.IRI(ns.ClassPlanStep), Label: g})
		add(sn, ns.PlanStepIndex, ns.Integer(int64(i+1)))
		add(sn, ns.PlanStepTitle, ns.String(s.Title))
		if s.Description != "" {
			add(sn, ns.PlanStepDescription, ns.String(s.Description))
		}
	}
	return out
}
