package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEdgeVersionKeys(t *testing.T) {
	tests := []struct {
		value   string
		want    bool
		wantErr bool
	}{
		{"", false, false},
		{"false", false, false},
		{"true", true, false},
		{"yes", false, true},
		{"TRUE", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			c, err := Load(func(k string) string {
				if k == "EDGE_VERSION_KEYS" {
					return tt.value
				}
				return ""
			})
			if tt.wantErr {
				assert.ErrorContains(t, err, "EDGE_VERSION_KEYS")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.EdgeVersionKeys)
		})
	}
}
