package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadClickSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    clickSettings
		wantErr string
	}{
		{
			name: "defaults",
			want: clickSettings{kinesisPort: 4567, stream: "shortener-clicks", batchWindow: 5 * time.Second},
		},
		{
			name: "everything set",
			env: map[string]string{
				"SHORTENER_KINESIS_ENDPOINT": "http://127.0.0.1:4568", "SHORTENER_KINESIS_PORT": "0",
				"CLICKS_STREAM":                 "clicks",
				"SHORTENER_CLICKS_BATCH_WINDOW": "0s", "SHORTENER_EDGE_COUNTRY": "FR",
			},
			want: clickSettings{kinesisEndpoint: "http://127.0.0.1:4568", kinesisPort: 0, stream: "clicks",
				batchWindow: 0, country: "FR"},
		},
		{name: "bad port", env: map[string]string{"SHORTENER_KINESIS_PORT": "kinesis"}, wantErr: "SHORTENER_KINESIS_PORT"},
		{name: "port out of range", env: map[string]string{"SHORTENER_KINESIS_PORT": "-1"}, wantErr: "SHORTENER_KINESIS_PORT"},
		{name: "bad window", env: map[string]string{"SHORTENER_CLICKS_BATCH_WINDOW": "soon"}, wantErr: "SHORTENER_CLICKS_BATCH_WINDOW"},
		{name: "window past the mapping's maximum", env: map[string]string{"SHORTENER_CLICKS_BATCH_WINDOW": "301s"}, wantErr: "SHORTENER_CLICKS_BATCH_WINDOW"},
		{name: "lower-case country", env: map[string]string{"SHORTENER_EDGE_COUNTRY": "de"}, wantErr: "SHORTENER_EDGE_COUNTRY"},
		{name: "country name", env: map[string]string{"SHORTENER_EDGE_COUNTRY": "Germany"}, wantErr: "SHORTENER_EDGE_COUNTRY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadClickSettings(env(tt.env))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
