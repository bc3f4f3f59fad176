package localedge

import "time"

// reportDrops logs, every interval in which the edge dropped log records,
// how many it dropped and how many in all, until Close: a sink that falls
// behind shows while the run goes on, not only when it stops. CloudFront
// itself delivers real-time logs on a best-effort basis (CloudFront
// Developer Guide, "Real-time logs":
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/real-time-logs.html),
// so a lost record is AWS's behaviour too; a silent one is not
// acceptable here, where every missing click is ours to explain.
func (e *Edge) reportDrops(interval time.Duration) {
	defer close(e.reported)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var reported int64
	for {
		select {
		case <-tick.C:
			if n := e.dropped.Load(); n > reported {
				e.log.Warn("localedge: real-time log records dropped, the sink falls behind",
					"dropped", n-reported, "dropped_total", n, "buffer", e.logBuffer, "interval", interval.String())
				reported = n
			}
		case <-e.stop:
			return
		}
	}
}
