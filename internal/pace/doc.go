// Package pace is the waiting the local run and its tools do between
// rounds of work: a pause (Sleep) or a period (Every) that the end of a
// context cuts short, so that a shutdown never waits out a timer.
package pace
