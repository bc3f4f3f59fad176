package webhook

import "time"

// DefaultSchedule is the wait before each retry, after the first attempt:
// the schedule the Standard Webhooks spec suggests (5 s, 5 min, 30 min,
// 2 h, 5 h, 10 h, 10 h), plus one more 10 h, about 37.6 hours in all, so a
// receiver that is down for a day still gets every event.
var DefaultSchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// NextRetry returns the wait before attempt+1, where attempt (from 1) has
// just failed, and false when the schedule is spent.
func NextRetry(schedule []time.Duration, attempt int) (time.Duration, bool) {
	if attempt < 1 || attempt > len(schedule) {
		return 0, false
	}
	return schedule[attempt-1], true
}
