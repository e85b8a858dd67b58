package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// defaultMemoryLimit is cortexctl's memory limit (see applyMemoryLimit):
// with it, an import of a 1 GB N-Triples file stays within 1 GB of resident
// memory (docs/PERFORMANCE.md).
const defaultMemoryLimit = "768MiB"

func memoryLimitFlag() cli.Flag {
	return &cli.StringFlag{
		Name: "memory-limit",
		Usage: "memory cortexctl may use, e.g. 768MiB or 2GiB (at least 256MiB); off (or 0) for no limit. The storage engine's caches " +
			"are sized from it, the Go heap's soft limit is 7/8 of it, and the store's mapped table pages are paged out when " +
			"the process's resident memory passes it. GOMEMLIMIT, if set, takes precedence over the default",
		EnvVars: []string{"CORTEX_MEMORY_LIMIT"},
		Value:   defaultMemoryLimit,
	}
}

// applyMemoryLimit applies the memory limit chosen by --memory-limit (or
// GOMEMLIMIT, when the flag is not given) and returns it, 0 for none. The
// store is given it as its budget (cortex.Options.WithMemoryBudget: Badger's
// caches are sized from it and the store's mapped table pages are paged out
// when the process's RSS passes it); the Go heap's soft limit is seven
// eighths of it, which leaves room for those mapped pages.
func applyMemoryLimit(c *cli.Context, args []string) (int64, error) {
	limit := c.String("memory-limit")
	// CORTEX_MEMORY_LIMIT set but empty is unset, as the other variables
	// are (an empty --memory-limit on the command line is a usage error).
	v, set := os.LookupEnv("CORTEX_MEMORY_LIMIT")
	envEmpty := limit == "" && set && v == "" && !flagOnCommandLine(c.App, args, "memory-limit")
	if envEmpty {
		limit = defaultMemoryLimit
	}
	if limit == "" {
		return 0, usagef("--memory-limit is empty: give a value or leave the option out")
	}
	if (!c.IsSet("memory-limit") || envEmpty) && os.Getenv("GOMEMLIMIT") != "" {
		// The runtime applied it; the store's budget is at least its
		// smallest (a smaller GOMEMLIMIT still bounds the Go heap).
		if n := debug.SetMemoryLimit(-1); n != math.MaxInt64 {
			return max(n, 256<<20), nil
		}
		return 0, nil
	}
	n, err := parseSize(limit)
	if err != nil {
		return 0, fmt.Errorf("%w: --memory-limit (CORTEX_MEMORY_LIMIT): %v", errInvalid, err)
	}
	if n == math.MaxInt64 {
		debug.SetMemoryLimit(n)
		return 0, nil
	}
	debug.SetMemoryLimit(n - n/8)
	return n, nil
}

// parseSize parses a memory budget: a byte size (see parseBytes); "0" and
// "off" mean no limit (math.MaxInt64).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "off") || t == "0" {
		return math.MaxInt64, nil
	}
	n, err := parseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size (e.g. 768MiB, 2GiB, off)", s)
	}
	if n < 256<<20 {
		return 0, fmt.Errorf("%q is below 256MiB (the store's smallest memory budget)", s)
	}
	return n, nil
}

// parseBytes parses a byte size: a number ≥ 0 with an optional unit B, KB,
// MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024).
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
	}
	mult := 1.0
	for _, u := range units {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a size (e.g. 512KiB, 32MiB)", s)
	}
	n := v * mult
	if n >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(n), nil
}
