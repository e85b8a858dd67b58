package engine

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The RSS governor (see Options.WithMemoryBudget). Badger maps its table
// files into memory to write and read them; every page touched stays
// resident, so the process's RSS grows with the store (during a 1 GB import
// by about as much again). When the RSS passes the budget, the governor
// asks the kernel to page the store's table mappings out (MADV_PAGEOUT,
// Linux 5.4): a hint that keeps the data (clean pages are dropped, dirty
// ones written back) and that the next access reads back in. The ranges
// come from /proc/self/maps; one that Badger unmapped meanwhile and that was
// reused is at worst paged out too, which costs time, never data.

const madvPageout = 21 // MADV_PAGEOUT, not in package syscall

// startGovernor starts the store's RSS governor if the budget asks for it;
// Close stops it (stopGovernor).
func (s *Store) startGovernor() {
	if !s.opts.governor || s.opts.inMemory {
		return
	}
	dir, err := filepath.Abs(s.dir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return
	}
	s.govLimit.Store(s.opts.memBudget)
	s.govStop, s.govDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.govDone)
		t := time.NewTicker(s.tune.GovernorEvery)
		defer t.Stop()
		for {
			select {
			case <-s.govStop:
				return
			case <-t.C:
			}
			// Page out only when mapped files are a good part of the
			// excess: when the Go heap alone is over, paging out would
			// only evict hot table pages again and again.
			if rss, file, ok := residentBytes(); ok && rss > s.govLimit.Load() && file > s.govLimit.Load()/8 {
				if _, err := pageOutMappings(dir); err != nil {
					return // not supported here
				}
			}
		}
	}()
}

// stopGovernor stops the governor and waits for it.
func (s *Store) stopGovernor() {
	if s.govStop != nil {
		close(s.govStop)
		<-s.govDone
		s.govStop = nil
	}
}

// residentBytes returns the process's resident set size and the part of it
// that maps files (RssFile), from /proc/self/status.
func residentBytes() (rss, file int64, ok bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, false
	}
	var found int
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss, found = kb<<10, found+1
		case "RssFile:":
			file, found = kb<<10, found+1
		}
	}
	return rss, file, found == 2
}

// pageOutMappings asks the kernel to page out every mapping of a table file
// (*.sst) in dir and returns the bytes of the mappings it advised. It fails
// only when madvise is not supported (EINVAL: a kernel before 5.4).
func pageOutMappings(dir string) (int64, error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, nil
	}
	defer f.Close()
	var ranges [][2]uintptr
	prefix := []byte(dir + "/")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 7f2c1a000000-7f2c1a200000 r--s 00000000 fd:00 1234  /dir/000012.sst
		line := sc.Bytes()
		i := bytes.IndexByte(line, '/')
		if i < 0 || !bytes.HasPrefix(line[i:], prefix) || !bytes.HasSuffix(line, []byte(".sst")) {
			continue
		}
		dash := bytes.IndexByte(line, '-')
		sp := bytes.IndexByte(line, ' ')
		if dash < 0 || sp < dash {
			continue
		}
		lo, err1 := strconv.ParseUint(string(line[:dash]), 16, 64)
		hi, err2 := strconv.ParseUint(string(line[dash+1:sp]), 16, 64)
		if err1 != nil || err2 != nil || hi <= lo {
			continue
		}
		ranges = append(ranges, [2]uintptr{uintptr(lo), uintptr(hi)})
	}
	var advised int64
	for _, r := range ranges {
		_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], madvPageout)
		if errno == syscall.EINVAL {
			return advised, errno
		}
		if errno == 0 {
			advised += int64(r[1] - r[0])
		}
	}
	return advised, nil
}
