package scenarios

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// fallbackMemory is the machine's memory assumed where neither /proc/meminfo nor a cgroup
// limit can be read.
const fallbackMemory = 8 << 30

// machine is the machine's memory and where it was read, found once.
var machine = sync.OnceValues(func() (int64, string) {
	total, source := int64(fallbackMemory), "8 GiB assumed: /proc/meminfo unreadable"
	if n, ok := memTotal(); ok {
		total, source = n, "MemTotal in /proc/meminfo"
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if n, ok := cgroupLimit(path); ok && n < total {
			total, source = n, path
		}
	}
	return total, source
})

// DefaultMaxMemory is the memory budget of a run whose Config.MaxMemory is zero: a
// quarter of the machine's memory, which is the smaller of MemTotal in /proc/meminfo and
// the cgroup's limit (8 GiB where neither can be read). A quarter leaves room for the
// collector's headroom (the heap may reach twice what is live at the default pacing, and
// five times in a batch, which paces the collector at GOGC 400 under a soft limit of twice
// this budget: scenarios/batch) and for a second run in a batch. It is read once per process; a scenario that must stop at the same event on
// every machine sets limits.max_memory.
func DefaultMaxMemory() int64 {
	total, _ := machine()
	return total / 4
}

// defaultMaxMemorySource says how DefaultMaxMemory was found, for messages.
func defaultMaxMemorySource() string {
	total, source := machine()
	return fmt.Sprintf("a quarter of %s (%s)", FormatBytes(total), source)
}

// memTotal reads MemTotal from /proc/meminfo.
func memTotal() (int64, bool) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024, err == nil && kb > 0
		}
	}
	return 0, false
}

// cgroupLimit reads a cgroup's memory limit: a number of bytes, or "max" (none).
func cgroupLimit(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n, err == nil && n > 0
}
