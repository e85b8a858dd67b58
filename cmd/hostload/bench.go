package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// nsName is the namespace the benchmark's teams live in.
const nsName = "hostload"

// summary is the JSON summary of a run, in the shape of the SQL side's
// (sqlbench.py writes it, summary.py reads it). Latencies are in ms.
type summary struct {
	System         string   `json:"system"`
	Via            string   `json:"via"`                  // how the workload reached the store: viaInProcess, a server's transport or URL
	RPCStream      bool     `json:"rpc_stream,omitempty"` // through a server: the JSON-RPC calls went on one stream
	Params         params   `json:"params"`
	WorkloadDigest string   `json:"workload_digest"`
	ResultsDigest  string   `json:"results_digest"`
	ResultsFile    string   `json:"results_file"`
	SetupS         float64  `json:"setup_s"` // open the store, create the Manager and the teams
	WallS          float64  `json:"wall_s"`  // agents start -> last agent done (its merge included)
	Findings       int      `json:"findings"`
	Acknowledged   int      `json:"acknowledged"` // AddFinding calls that returned an id
	LostWrites     int      `json:"lost_writes"`  // acknowledged findings not in the store after the run
	FindingsPerS   float64  `json:"findings_per_s"`
	AddMS          stats    `json:"add_ms"`                    // one AddFinding call
	AddServerMS    *stats   `json:"add_server_ms,omitempty"`   // through a server: the server's time in an AddFinding call (Server-Timing)
	AddOverheadMS  *stats   `json:"add_overhead_ms,omitempty"` // through a server: an AddFinding call's time beyond the server's (JSON, HTTP, transport, queueing)
	StatusMS       stats    `json:"status_ms"`                 // one UpdateMemberStatus, without the merge it runs
	CreateTeamMS   stats    `json:"create_team_ms"`            // one CreateTeam
	MergeMS        stats    `json:"merge_ms"`                  // one automatic merge (MergeReport.MergedAt -> return)
	MergeCallMS    stats    `json:"merge_call_ms"`             // the completing UpdateMemberStatus, merge included
	Merges         []merged `json:"merges"`                    // sorted by team
	OpListMS       stats    `json:"op_list_ms"`                // ListTeams
	OpCountMS      stats    `json:"op_count_ms"`               // findings per agent of one running team
	OpTicks        int      `json:"op_ticks"`                  // operator ticks
	OpCounted      int      `json:"op_counted"`                // ticks with a running team to count
	OpCountMethod  string   `json:"op_count_method"`           // opCountSPARQL or opCountFindings
	Writes         *writes  `json:"writes,omitempty"`          // a store this process opened: the namespace's write counters over the run
	RSSPeakMB      float64  `json:"rss_peak_mb"`               // VmHWM of /proc/self/status at the end; -1 if unknown
	CPUS           float64  `json:"cpu_s"`                     // user + system CPU of the process
	DiskMB         float64  `json:"disk_mb"`
	DiskStartMB    float64  `json:"disk_start_mb"`
	LoadavgStart   string   `json:"loadavg_start"`
	LoadavgEnd     string   `json:"loadavg_end"`
	Teams          []count  `json:"teams"`
	Errors         []string `json:"errors"`
	Go             string   `json:"go"`
	Settings       settings `json:"settings"`
	Durability     string   `json:"durability"`
	Workdir        string   `json:"workdir"`
}

// writes are the benchmark namespace's write counters over the run, teams'
// creation included (cortex.WriteStats): what the writes cost the store
// and how long they waited for each other.
type writes struct {
	Deltas            int64   `json:"deltas"`              // deltas committed
	Journaled         int64   `json:"journaled"`           // of them, journaled (larger than one transaction)
	Quads             int64   `json:"quads"`               // quads they added or removed
	Entries           int64   `json:"entries"`             // Badger keys they wrote or deleted
	EntriesPerFinding float64 `json:"entries_per_finding"` // entries / findings: every write of the run, merges included
	LockWaits         int64   `json:"lock_waits"`          // times a writer waited for the namespace's write lock
	LockWaitS         float64 `json:"lock_wait_s"`         // time they waited, summed over the writers
	LockHeldS         float64 `json:"lock_held_s"`         // time the lock was held
}

func writesOf(st cortex.WriteStats, findings int) *writes {
	w := &writes{Deltas: st.Deltas, Journaled: st.Journaled, Quads: st.Quads, Entries: st.Entries,
		LockWaits: st.LockWaited, LockWaitS: st.LockWait.Seconds(), LockHeldS: st.LockHeld.Seconds()}
	if findings > 0 {
		w.EntriesPerFinding = float64(st.Entries) / float64(findings)
	}
	return w
}

// merged is one automatic merge.
type merged struct {
	Team            string  `json:"team"`
	MergeMS         float64 `json:"merge_ms"`
	CallMS          float64 `json:"call_ms"`
	ReportFacts     int     `json:"report_facts"`
	ReportConflicts int     `json:"report_conflicts"`
}

// count is a team's final state and merged results.
type count struct {
	Team      string `json:"team"`
	Strategy  string `json:"strategy"`
	Status    string `json:"status"`
	Facts     int    `json:"facts"`
	Conflicts int    `json:"conflicts"`
}

// settings are the store and Manager settings of the run.
type settings struct {
	SyncWrites  bool   `json:"sync_writes"`
	AutoMerge   bool   `json:"auto_merge"`
	Namespace   string `json:"namespace"`
	MaxTeamSize int    `json:"max_team_size"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
}

const durability = "Cortex default options (cortex.DefaultOptions): synchronous commits, every commit waits for fsync"

// line is the one-line report printed at the end of a run.
func (s *summary) line() string {
	server := ""
	if s.AddServerMS != nil && s.AddOverheadMS != nil {
		server = fmt.Sprintf(" (in the server p50 %.2f ms, beyond it p50 %.2f ms)", s.AddServerMS.P50, s.AddOverheadMS.P50)
	}
	via := s.Via
	if s.RPCStream {
		via += " (JSON-RPC stream)"
	}
	return fmt.Sprintf("cortex: %d findings in %.2f s (%.0f findings/s), add p50 %.2f ms p99 %.2f ms%s; merges %d "+
		"(median %.1f ms); peak RSS %.0f MB; errors %d; lost writes %d; via %s; load %s -> %s",
		s.Findings, s.WallS, s.FindingsPerS, s.AddMS.P50, s.AddMS.P99, server, len(s.Merges), s.MergeMS.Median,
		s.RSSPeakMB, len(s.Errors), s.LostWrites, via, s.LoadavgStart, s.LoadavgEnd)
}

// runCommand runs the benchmark in c.data (or a temporary directory), or
// on the server at c.server when it is a URL, and writes c.out and c.json.
func runCommand(ctx context.Context, c config, work [][][]genFinding, digest string) (*summary, error) {
	loadStart := loadavg()
	var sum *summary
	var lines []string
	var err error
	if c.server == viaInProcess || c.server == viaUnix || c.server == viaTCP {
		sum, lines, err = runOnStore(ctx, c, work)
	} else {
		var h host
		if h, err = remoteHost(c.server, c.server, clients(c), c.stream); err != nil {
			return nil, err
		}
		sum, lines, err = benchmark(ctx, h, c, work)
	}
	if err != nil {
		return nil, err
	}
	sum.WorkloadDigest = digest
	sum.LoadavgStart = loadStart
	sum.ResultsFile = c.out
	sum.ResultsDigest = resultsDigest(lines)
	if err := writeResults(c.out, lines); err != nil {
		return nil, err
	}
	if err := writeSummary(c.json, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// runOnStore runs the benchmark on a store this process opens in c.data
// (or a temporary directory), in-process or through a server of it.
func runOnStore(ctx context.Context, c config, work [][][]genFinding) (_ *summary, _ []string, err error) {
	dir := c.data
	if dir != "" {
		if err := checkFresh(dir); err != nil {
			return nil, nil, err
		}
	} else {
		if dir, err = os.MkdirTemp("", "hostload-cortex-"); err != nil {
			return nil, nil, fmt.Errorf("temporary store directory: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	start := time.Now()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
	if err != nil {
		return nil, nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close store %s: %w", dir, cerr)
		}
	}()
	var h host
	if c.server == viaInProcess {
		h, err = embeddedHost(ctx, s, c)
	} else {
		var stop func() error
		h, stop, err = serveHost(ctx, s, c, c.server)
		if err == nil {
			defer func() {
				if serr := stop(); serr != nil && err == nil {
					err = serr
				}
			}()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	openS := time.Since(start).Seconds()
	diskStart := duBytes(dir)
	sum, lines, err := benchmark(ctx, h, c, work)
	if err != nil {
		return nil, nil, err
	}
	sum.SetupS += openS
	if n, err := s.OpenNamespace(ctx, nsName); err == nil {
		sum.Writes = writesOf(n.WriteStats(), sum.Findings)
	}
	sum.DiskStartMB = float64(diskStart) / (1 << 20)
	sum.DiskMB = float64(duBytes(dir)) / (1 << 20)
	sum.Workdir = dir
	return sum, lines, nil
}

// checkFresh returns a usage error unless dir is absent or an empty
// directory: the benchmark creates its teams in a new store.
func checkFresh(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usagef("--data %s: %v", dir, err)
	case len(ents) > 0:
		return usagef("--data %s: not empty (the benchmark needs a new store)", dir)
	}
	return nil
}

// benchmark runs the workload on host h and returns its summary (without
// the fields of the files and directory, which runCommand fills) and the
// canonical result lines. Failures of the workload's calls are collected
// in summary.Errors; an error is returned only when the run could not be
// set up or its results not read. Its phases: set up the teams, run the
// agents and the operator, take the process measures, check the findings
// (every acknowledged one is in the store) and merges, read the results,
// summarise.
func benchmark(ctx context.Context, h host, c config, work [][][]genFinding) (*summary, []string, error) {
	setupStart := time.Now()
	b, createMS, err := setup(ctx, h, c, work)
	if err != nil {
		return nil, nil, err
	}
	setupS := time.Since(setupStart).Seconds()
	wall := b.run(ctx)
	pm := measureProcess()
	b.checkFindings(ctx)
	lost := b.checkAcknowledged(ctx)
	lines, counts, err := dumpResults(ctx, b.h.m, c.Teams)
	if err != nil {
		return nil, nil, err
	}
	b.checkMerged(counts)
	sum := b.report(setupS, wall, createMS, counts, pm)
	sum.LostWrites = lost
	return sum, lines, nil
}

// maxTeamSize is the Manager's team size limit for c: the default, or c.Agents when larger.
func maxTeamSize(c config) int { return max(teammanager.DefaultMaxTeamSize, c.Agents) }

// setup creates the c.Teams teams on h, one after the other. It returns the
// run and the time of each CreateTeam, in ms; an error stops it.
func setup(ctx context.Context, h host, c config, work [][][]genFinding) (*bench, []float64, error) {
	b := &bench{c: c, work: work, h: h, acked: make([][]string, c.Teams)}
	var createMS []float64
	for t := range c.Teams {
		t0 := time.Now()
		if err := b.createTeam(ctx, t); err != nil {
			return nil, nil, err
		}
		createMS = append(createMS, msSince(t0))
	}
	return b, createMS, nil
}

// run starts every agent at once, each in its own goroutine, with the operator watching until they are
// all done, and returns the wall time from the start to the last agent done, in seconds. It returns once
// the operator has stopped too.
func (b *bench) run(ctx context.Context) float64 {
	gate, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	for t := range b.c.Teams {
		for a := range b.c.Agents {
			wg.Go(func() {
				<-gate
				b.agent(ctx, t, a)
			})
		}
	}
	var opWG sync.WaitGroup
	runStart := time.Now()
	close(gate)
	opWG.Go(func() { b.operator(ctx, done) })
	wg.Wait()
	wall := time.Since(runStart).Seconds()
	close(done)
	opWG.Wait()
	return wall
}

// processMeasures are the measures of the process taken once the agents are done.
type processMeasures struct {
	loadEnd string  // the 1, 5 and 15 minute load averages ("?" if unknown)
	cpu     float64 // user + system CPU, in seconds (-1 if unknown)
	rssKB   int64   // VmHWM, the peak resident set, in KB (-1 if unknown)
}

// measureProcess takes the process measures now.
func measureProcess() processMeasures {
	return processMeasures{loadEnd: loadavg(), cpu: cpuSeconds(), rssKB: procStatusKB("VmHWM")}
}

// checkFindings records an error of the run for every team whose findings cannot be counted and every
// agent whose findings, as the operator counts them, are not c.Findings.
func (b *bench) checkFindings(ctx context.Context) {
	for t := range b.c.Teams {
		per, err := b.countFindings(ctx, teamID(t))
		if err != nil {
			b.fail("final count: %s: %v", teamID(t), err)
			continue
		}
		for a := range b.c.Agents {
			if n := per[agentID(t, a)]; n != b.c.Findings {
				b.fail("final count: %s has %d findings, want %d", agentID(t, a), n, b.c.Findings)
			}
		}
	}
}

// checkAcknowledged reads the findings of every team back and records an
// error of the run for every acknowledged finding (an id AddFinding
// returned) that is not among them: a lost write. It returns their number
// (the findings of a team that cannot be read all count as lost).
func (b *bench) checkAcknowledged(ctx context.Context) int {
	lost := 0
	for t, ids := range b.acked {
		fs, err := b.h.m.Findings(ctx, teamID(t), teammanager.FindingFilter{})
		if err != nil {
			b.fail("acknowledged findings: %s: %v", teamID(t), err)
			lost += len(ids)
			continue
		}
		stored := make(map[string]bool, len(fs))
		for _, f := range fs {
			stored[f.ID] = true
		}
		for _, id := range ids {
			if !stored[id] {
				lost++
				b.fail("lost write: %s: finding %s was acknowledged but is not in the store", teamID(t), id)
			}
		}
	}
	return lost
}

// checkMerged records an error of the run for every team of counts that no automatic merge ran on,
// unless it failed (a team whose members all failed is not merged).
func (b *bench) checkMerged(counts []count) {
	merges := map[string]bool{}
	for _, mg := range b.merges {
		merges[mg.Team] = true
	}
	for _, ct := range counts {
		if !merges[ct.Team] && ct.Status != string(teammanager.Failed) {
			b.fail("team %s (%s): no merge ran", ct.Team, ct.Status)
		}
	}
}

// report returns the summary of the run from its timings (setup and wall in seconds, createMS per
// team), the teams' final counts and the process measures. Errors is never nil.
func (b *bench) report(setupS, wall float64, createMS []float64, counts []count, pm processMeasures) *summary {
	c := b.c
	total := c.Teams * c.Agents * c.Findings
	var mergeMS, callMS []float64
	for _, mg := range b.merges {
		mergeMS = append(mergeMS, mg.MergeMS)
		callMS = append(callMS, mg.CallMS)
	}
	perS := 0.0
	if wall > 0 {
		perS = float64(total) / wall
	}
	rss := -1.0
	if pm.rssKB >= 0 {
		rss = float64(pm.rssKB) / 1024
	}
	sum := &summary{
		System: "cortex", Via: b.h.via, RPCStream: b.h.via != viaInProcess && c.stream, Params: c.params,
		SetupS: setupS, WallS: wall, Findings: total, Acknowledged: b.acknowledged(), FindingsPerS: perS,
		AddMS: summarize(b.addMS), AddServerMS: summarizeSome(b.addServerMS), AddOverheadMS: summarizeSome(b.addOverMS), StatusMS: summarize(b.statusMS), CreateTeamMS: summarize(createMS),
		MergeMS: summarize(mergeMS), MergeCallMS: summarize(callMS), Merges: b.sortedMerges(),
		OpListMS: summarize(b.op.list), OpCountMS: summarize(b.op.count), OpTicks: b.op.ticks, OpCounted: b.op.counted,
		OpCountMethod: c.opCount, RSSPeakMB: rss, CPUS: pm.cpu, LoadavgEnd: pm.loadEnd, Teams: counts, Errors: b.errors,
		Go: runtime.Version(), Durability: durability,
		Settings: settings{SyncWrites: true, AutoMerge: true, Namespace: nsName, MaxTeamSize: maxTeamSize(c), GOMAXPROCS: runtime.GOMAXPROCS(0)},
	}
	if sum.Errors == nil {
		sum.Errors = []string{}
	}
	return sum
}

// bench is one run of the workload.
type bench struct {
	c    config
	work [][][]genFinding
	h    host

	mu    sync.Mutex // guards the fields below, written by the agents
	acked [][]string // ids of the acknowledged findings, by team
	addMS []float64
	// Through a server: of each AddFinding, the server's time in the call
	// (its Server-Timing) and the rest of the call's time.
	addServerMS, addOverMS []float64
	statusMS               []float64
	merges                 []merged
	errors                 []string

	op struct { // written by the operator goroutine only
		list, count    []float64
		ticks, counted int
	}
}

func msSince(t time.Time) float64 { return float64(time.Since(t)) / float64(time.Millisecond) }

// fail records an error of the run.
func (b *bench) fail(format string, a ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errors = append(b.errors, fmt.Sprintf(format, a...))
}

// acknowledged returns the number of acknowledged findings.
func (b *bench) acknowledged() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, ids := range b.acked {
		n += len(ids)
	}
	return n
}

func (b *bench) sortedMerges() []merged {
	out := append([]merged{}, b.merges...)
	sortMerges(out)
	return out
}

// createTeam creates team t with its members, all pending.
func (b *bench) createTeam(ctx context.Context, t int) error {
	tc := teammanager.TeamConfig{
		ID: teamID(t), Name: fmt.Sprintf("review %d", t), Strategy: strategy(t),
		Context: "hostload benchmark team", Timeout: -1, // no timeout: the SQL side has none
	}
	for a := range b.c.Agents {
		tc.Members = append(tc.Members, teammanager.MemberConfig{AgentID: agentID(t, a), Role: "reviewer"})
	}
	if _, err := b.h.m.CreateTeam(ctx, tc); err != nil {
		return fmt.Errorf("create %s: %w", tc.ID, err)
	}
	return nil
}

// agent runs agent a of team t: running, its findings one call each, then
// completed or failed (the call that finishes the team merges it).
func (b *bench) agent(ctx context.Context, t, a int) {
	tid, aid := teamID(t), agentID(t, a)
	var addMS, statusMS, serverMS, overMS []float64
	var ids []string
	var mg *merged
	defer func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.acked[t] = append(b.acked[t], ids...)
		b.addMS = append(b.addMS, addMS...)
		b.addServerMS = append(b.addServerMS, serverMS...)
		b.addOverMS = append(b.addOverMS, overMS...)
		b.statusMS = append(b.statusMS, statusMS...)
		if mg != nil {
			b.merges = append(b.merges, *mg)
		}
	}()
	t0 := time.Now()
	if _, err := b.h.m.UpdateMemberStatus(ctx, tid, aid, teammanager.Running, ""); err != nil {
		b.fail("%s/%s: %v", tid, aid, err)
		return
	}
	statusMS = append(statusMS, msSince(t0))
	var srv time.Duration // the server's time in the call, if through a server
	callCtx := ctx
	if b.h.via != viaInProcess {
		callCtx = withServerTime(ctx, &srv)
	}
	for _, f := range b.work[t][a] {
		t0 := time.Now()
		srv = 0
		id, err := b.h.m.AddFinding(callCtx, tid, aid, teammanager.Finding{
			Subject: quad.IRI(f.S), Predicate: quad.IRI(f.P), Object: quad.String(f.O), Confidence: float64(f.Conf) / 100,
		})
		if err != nil {
			b.fail("%s/%s: %v", tid, aid, err)
			return
		}
		ids = append(ids, id)
		addMS = append(addMS, msSince(t0))
		if srv > 0 {
			serverMS = append(serverMS, float64(srv)/float64(time.Millisecond))
			overMS = append(overMS, addMS[len(addMS)-1]-serverMS[len(serverMS)-1])
		}
	}
	final := teammanager.Completed
	if agentFails(t, a, b.c.Agents) {
		final = teammanager.Failed
	}
	t0 = time.Now()
	up, err := b.h.m.UpdateMemberStatus(ctx, tid, aid, final, fmt.Sprintf("%d findings", len(b.work[t][a])))
	end := time.Now()
	if err != nil {
		b.fail("%s/%s: %v", tid, aid, err)
		return
	}
	call := float64(end.Sub(t0)) / float64(time.Millisecond)
	if up.Merge == nil {
		statusMS = append(statusMS, call)
		return
	}
	// The merge ran in this call, after the update committed: it started
	// at MergedAt (wall clock). The update's own latency is the rest, as
	// the SQL side times the update and the merge apart.
	mergeMS := min(max(float64(end.Sub(up.Merge.MergedAt))/float64(time.Millisecond), 0), call)
	statusMS = append(statusMS, call-mergeMS)
	mg = &merged{Team: tid, MergeMS: mergeMS, CallMS: call, ReportFacts: len(up.Merge.Facts), ReportConflicts: len(up.Merge.OpenConflicts)}
}

// operator lists all teams every interval and counts the findings per
// agent of one running team, until done is closed. Missed ticks are
// dropped (time.Ticker).
func (b *bench) operator(ctx context.Context, done <-chan struct{}) {
	tk := time.NewTicker(time.Duration(b.c.IntervalMS) * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		select {
		case <-done:
			return
		default:
		}
		b.op.ticks++
		t0 := time.Now()
		teams, err := b.h.m.ListTeams(ctx, teammanager.TeamFilter{})
		if err != nil {
			b.fail("operator: %v", err)
			return
		}
		b.op.list = append(b.op.list, msSince(t0))
		var running []string
		for _, t := range teams {
			if t.Status == teammanager.Running {
				running = append(running, t.ID)
			}
		}
		if len(running) == 0 {
			continue
		}
		tid := running[b.op.ticks%len(running)]
		t0 = time.Now()
		if _, err := b.countFindings(ctx, tid); err != nil {
			b.fail("operator: %v", err)
			return
		}
		b.op.count = append(b.op.count, msSince(t0))
		b.op.counted++
	}
}

// countQuery counts the findings per member of team ?team.
const countQuery = `SELECT ?member (COUNT(?f) AS ?n) WHERE {
  ?team cx:team:member ?member .
  ?f cx:finding:assertedBy ?member .
} GROUP BY ?member`

// countFindings returns the number of findings per agent of team tid, by
// the method of --op-count. Agents without findings may be absent.
func (b *bench) countFindings(ctx context.Context, tid string) (map[string]int, error) {
	out := map[string]int{}
	if b.c.opCount == opCountFindings {
		fs, err := b.h.m.Findings(ctx, tid, teammanager.FindingFilter{})
		if err != nil {
			return nil, fmt.Errorf("count findings of %s: %w", tid, err)
		}
		for _, f := range fs {
			out[f.Agent]++
		}
		return out, nil
	}
	rows, err := b.h.count(ctx, b.h.x.Team(tid))
	if err != nil {
		return nil, fmt.Errorf("count findings of %s: %w", tid, err)
	}
	for _, row := range rows {
		if len(row) != 2 {
			return nil, fmt.Errorf("count findings of %s: row %v: want 2 values", tid, row)
		}
		iri, _ := row[0].(quad.IRI)
		ref, err := b.h.x.Parse(iri)
		if err != nil || ref.Kind != namespace.KindMember {
			return nil, fmt.Errorf("count findings of %s: %v is not a member node", tid, row[0])
		}
		n, err := strconv.Atoi(lexical(row[1]))
		if err != nil {
			return nil, fmt.Errorf("count findings of %s: count %v: %w", tid, row[1], err)
		}
		out[ref.Agent] = n
	}
	return out, nil
}

// resultsDigest is the hex SHA-256 of the results file's lines, each
// followed by a newline.
func resultsDigest(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeSummary(path string, s *summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}
