package edgecache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgecache"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []string
		wantErr bool
	}{
		{name: "generated code", in: []string{"/aB3dE5f"}, want: []string{"/aB3dE5f"}},
		{name: "alias keeps its case", in: []string{"/Summer-Sale", "/summer-sale"}, want: []string{"/Summer-Sale", "/summer-sale"}},
		{name: "leading slash added", in: []string{"my_link"}, want: []string{"/my_link"}},
		{name: "duplicates dropped, first order kept", in: []string{"/b", "/a", "b", "/b"}, want: []string{"/b", "/a"}},
		{name: "space", in: []string{"/a b"}, want: []string{"/a%20b"}},
		{name: "percent is escaped, not trusted", in: []string{"/100%"}, want: []string{"/100%25"}},
		{name: "rfc 1738 unsafe characters", in: []string{`/<>"#{}|\^~[]` + "`"}, want: []string{"/%3C%3E%22%23%7B%7D%7C%5C%5E%7E%5B%5D%60"}},
		{name: "non-ascii as utf-8 bytes", in: []string{"/straße"}, want: []string{"/stra%C3%9Fe"}},
		{name: "control character", in: []string{"/a\x00\x7f"}, want: []string{"/a%00%7F"}},
		{name: "safe punctuation left alone", in: []string{"/a-b_c.d!$&'()+,;=:@"}, want: []string{"/a-b_c.d!$&'()+,;=:@"}},
		{name: "query string kept", in: []string{"/a?x=1&y=2"}, want: []string{"/a?x=1&y=2"}},
		{name: "trailing wildcard", in: []string{"/promo*", "/*"}, want: []string{"/promo*", "/*"}},
		{name: "wildcard inside", in: []string{"/a*b"}, wantErr: true},
		{name: "two wildcards", in: []string{"/a**"}, wantErr: true},
		{name: "empty path", in: []string{"/a", ""}, wantErr: true},
		{name: "nothing", in: nil, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := edgecache.Clean(tt.in)
			if tt.wantErr {
				assert.Error(t, err)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
