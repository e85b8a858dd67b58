package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// StartID returns an identity of process pid's start that differs between
// two processes that had the same pid (a pid reused after its process
// ended, as in a restarted container): the boot id
// (/proc/sys/kernel/random/boot_id) and the process's start time in clock
// ticks since boot (/proc/PID/stat, field 22). It returns "" if pid is no
// process this one can see, or the machine cannot tell (not Linux).
func StartID(pid int) string {
	if pid <= 0 {
		return ""
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// Field 2, the command in parentheses, may hold spaces and ')': the
	// fields counted start after the last ')', with field 3.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(stat[i+1:]))
	const startTime = 22 - 3
	if len(fields) <= startTime {
		return ""
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(boot)) + ":" + fields[startTime]
}
