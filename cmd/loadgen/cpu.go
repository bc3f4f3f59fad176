package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// The CPU a process and the whole machine spend during a phase, read from
// /proc (Linux; elsewhere nothing is reported). On a shared two-core
// machine throughput moves with whatever else runs; the server's CPU per
// request moves much less, and the machine's busy share says how much
// else ran.

// clockTick is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go supports.
const clockTick = 100

// processCPU returns the user and system CPU time process pid has used;
// zero for pid 0.
func processCPU(pid int) (time.Duration, bool) {
	if pid == 0 {
		return 0, true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(fields[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / clockTick, true
}

// machineCPU returns the busy and total CPU time of all CPUs since boot.
func machineCPU() (busy, total time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0, false
	}
	var sum, idle int64
	for i, f := range fields[1:] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		sum += v
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		}
	}
	return time.Duration(sum-idle) * time.Second / clockTick, time.Duration(sum) * time.Second / clockTick, true
}

// cpuMeter measures one phase.
type cpuMeter struct {
	pid                int
	proc0, busy0, tot0 time.Duration
	ok                 bool
}

func startCPU(pid int) cpuMeter {
	m := cpuMeter{pid: pid}
	var ok1, ok2 bool
	m.proc0, ok1 = processCPU(pid)
	m.busy0, m.tot0, ok2 = machineCPU()
	m.ok = ok1 && ok2
	return m
}

// stop returns the server's CPU per request and the machine's busy share
// since start.
func (m cpuMeter) stop(requests int) (perRequest time.Duration, busyShare float64, ok bool) {
	proc, ok1 := processCPU(m.pid)
	busy, tot, ok2 := machineCPU()
	if !m.ok || !ok1 || !ok2 || requests == 0 || tot == m.tot0 {
		return 0, 0, false
	}
	return (proc - m.proc0) / time.Duration(requests), float64(busy-m.busy0) / float64(tot-m.tot0), true
}
