package clickstore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/clickstore/clickstoretest"
)

func TestMemory(t *testing.T) {
	clickstoretest.Run(t, func(t *testing.T, cfg clickstoretest.Config) clickstore.Store {
		return clickstore.NewMemory(cfg.MaxBreakdownItems)
	})
}

func c(total, human, bot int64) clickstore.Counts {
	return clickstore.Counts{Total: total, Human: human, Bot: bot}
}

func TestCompareSequence(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{a: "1", b: "1", want: 0},
		{a: "9", b: "10", want: -1},
		{a: "10", b: "9", want: 1},
		{a: "0009", b: "10", want: -1},
		{a: "010", b: "10", want: 0},
		{a: "49568167373333333333333333333333333333333333333333333333", b: "49568167373333333334444444444444444444444444444444444444", want: -1},
		{a: strings.Repeat("9", 128), b: "1" + strings.Repeat("0", 56), want: 1},
		{a: "", b: "0", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			assert.Equal(t, tt.want, clickstore.CompareSequence(tt.a, tt.b))
		})
	}
}

func TestCountsAddClick(t *testing.T) {
	var got clickstore.Counts
	got.AddClick(false)
	got.AddClick(true)
	got.AddClick(false)
	got.Add(c(10, 4, 6))

	assert.Equal(t, c(13, 6, 7), got)
}
