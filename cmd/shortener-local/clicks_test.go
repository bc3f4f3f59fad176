package main

import (
	"testing"
	"time"
)

func TestLoadClickSettings(t *testing.T) {
	tests := []settingsCase[clickSettings]{
		{
			name: "defaults",
			want: clickSettings{kinesisPort: 4567, stream: "shortener-clicks", batchWindow: 5 * time.Second, eventsRetry: time.Minute},
		},
		{
			name: "everything set",
			env: map[string]string{
				"SHORTENER_KINESIS_ENDPOINT": "http://127.0.0.1:4568", "SHORTENER_KINESIS_PORT": "0",
				"CLICKS_STREAM":                 "clicks",
				"SHORTENER_CLICKS_BATCH_WINDOW": "0s", "SHORTENER_EDGE_COUNTRY": "FR",
				"SHORTENER_CLICK_EVENTS_RETRY": "2s",
			},
			want: clickSettings{kinesisEndpoint: "http://127.0.0.1:4568", kinesisPort: 0, stream: "clicks",
				batchWindow: 0, country: "FR", eventsRetry: 2 * time.Second},
		},
		{name: "bad port", env: map[string]string{"SHORTENER_KINESIS_PORT": "kinesis"}, wantErr: "SHORTENER_KINESIS_PORT"},
		{name: "port out of range", env: map[string]string{"SHORTENER_KINESIS_PORT": "-1"}, wantErr: "SHORTENER_KINESIS_PORT"},
		{name: "bad window", env: map[string]string{"SHORTENER_CLICKS_BATCH_WINDOW": "soon"}, wantErr: "SHORTENER_CLICKS_BATCH_WINDOW"},
		{name: "window past the mapping's maximum", env: map[string]string{"SHORTENER_CLICKS_BATCH_WINDOW": "301s"}, wantErr: "SHORTENER_CLICKS_BATCH_WINDOW"},
		{name: "retry below a second", env: map[string]string{"SHORTENER_CLICK_EVENTS_RETRY": "500ms"}, wantErr: "SHORTENER_CLICK_EVENTS_RETRY"},
		{name: "retry not a duration", env: map[string]string{"SHORTENER_CLICK_EVENTS_RETRY": "60"}, wantErr: "SHORTENER_CLICK_EVENTS_RETRY"},
		{name: "lower-case country", env: map[string]string{"SHORTENER_EDGE_COUNTRY": "de"}, wantErr: "SHORTENER_EDGE_COUNTRY"},
		{name: "country name", env: map[string]string{"SHORTENER_EDGE_COUNTRY": "Germany"}, wantErr: "SHORTENER_EDGE_COUNTRY"},
	}
	runSettingsCases(t, loadClickSettings, tests)
}
