package main

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress shows a progress bar on stderr for operations that run longer than
// a second, and only when stderr is a terminal.
type progress struct {
	mu      sync.Mutex // set may be called from several goroutines
	enabled bool
	start   time.Time
	max     int64
	desc    string
	bytes   bool
	e       *env
	bar     *progressbar.ProgressBar
}

func (e *env) newProgress(desc string, max int64, bytes bool) *progress {
	return &progress{enabled: e.stderrIsTerminal(), start: time.Now(), max: max, desc: desc, bytes: bytes, e: e}
}

func (p *progress) set(n int64) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		if time.Since(p.start) < time.Second {
			return
		}
		max := p.max
		if max <= 0 {
			max = -1 // spinner
		}
		p.bar = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(p.e.stderr),
			progressbar.OptionSetDescription(p.desc),
			progressbar.OptionShowBytes(p.bytes),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	_ = p.bar.Set64(n)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// countingReader counts the bytes read through it and reports the total to
// onRead (if set) after each read.
type countingReader struct {
	r      interface{ Read([]byte) (int, error) }
	n      atomic.Int64
	onRead func(total int64)
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	total := c.n.Add(int64(n))
	if c.onRead != nil {
		c.onRead(total)
	}
	return n, err
}
