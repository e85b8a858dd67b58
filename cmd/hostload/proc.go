package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Process and machine measures. They read Linux's /proc; elsewhere they
// report "?" or -1.

// loadavg returns the 1, 5 and 15 minute load averages of /proc/loadavg,
// or "?".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// procStatusKB returns field (e.g. "VmHWM", the peak resident set size) of
// /proc/self/status in kB, or -1.
func procStatusKB(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) == 0 {
			return -1
		}
		n, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	return -1
}

// duBytes returns the disk space used by the files under dir (allocated
// blocks where the system tells them, else sizes); files that vanish
// while it walks are skipped.
func duBytes(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error { //nolint:errcheck // best effort, as du
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			total += allocated(info)
		}
		return nil
	})
	return total
}
