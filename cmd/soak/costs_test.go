package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/internal/capacity"
)

func TestFigures(t *testing.T) {
	c := localCosts{Records: 10, RecordBytes: 2540, Functions: map[string]capacity.Usage{
		"redirect": {ByTable: map[string]capacity.TableUse{
			"l GetItem":               {Units: 50, Calls: 100},
			"l Query":                 {Units: 1, Calls: 2},
			"l-edge-marks UpdateItem": {Units: 14, Calls: 14, Failed: 1},
			"l-misses UpdateItem":     {Units: 3, Calls: 3},
			"other GetItem":           {Units: 9, Calls: 9},
		}},
		"stats": {RRU: 42},
	}}
	f := figures(edgeCounters{Misses: 200, InvalidationPaths: 11, Invalidations: 10}, c, "l", "l-edge-marks")
	f.Changes, f.StatsAnswers = 100, 4

	tests := []struct {
		name      string
		got, want any
	}{
		{"link reads: the redirect's reads of the links table", f.LinkReads, int64(102)},
		{"marks: the refused one billed too", f.Marks, int64(15)},
		{"origin requests", f.OriginRequests, int64(200)},
		{"invalidations and paths", [2]int64{f.Invalidations, f.Paths}, [2]int64{10, 11}},
		{"records", [2]int64{f.Records, f.RecordBytes}, [2]int64{10, 2540}},
		{"stats RRU", f.StatsRRU, 42.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
	assert.Equal(t, "soak costs: changed links invalidated 10/100 = 0.100 (1.10 paths each); edge marks 15 per 102 link reads = 0.147 "+
		"(200 origin requests: 0.075 per origin request); real-time log records 10, 254 bytes each; stats answers 4, 10.50 RRU each", f.line())
	assert.Contains(t, costFigures{}.line(), "= 0.000", "no division by zero")
}
