package localedge

import (
	"bytes"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/console"
)

// Bucket plays the console's S3 bucket behind CloudFront's origin access
// control, holding the build output in dir below the console/ prefix, as
// infra/webconsole deploys it: each object with the Cache-Control its
// deployment sets (console.HTMLCacheControl, console.AssetCacheControl on
// the hashed assets). The edge in front of it plays the rest of the
// /console behaviours as the description has them (shared/edgespec): the
// rewrite function (/console to /console/, /console/ to index.html) and
// the console's response headers policies.
//
// A key that is not in the bucket answers 403, as S3 does for a missing
// object when the caller (here CloudFront's origin access control) may not
// list the bucket: https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html
// ("If you don't have the s3:ListBucket permission, Amazon S3 returns an
// HTTP status code 403"). A dir that does not exist answers 503 saying how
// to build it.
func Bucket(dir string) http.Handler { return BucketWith(dir, nil) }

// BucketWith is Bucket holding objects besides the build, by key below
// the console's folder, as a deployment adds files it writes itself
// (infra/webconsole writes console.ConfigKey beside the HTML, with the
// HTML's Cache-Control). An object here wins over a file of the same key.
func BucketWith(dir string, objects map[string][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			consoleDenied(w)
			return
		}
		key, ok := consoleKey(r.URL.Path)
		if !ok {
			consoleDenied(w)
			return
		}
		if b, ok := objects[key]; ok {
			h.Set("Cache-Control", console.HTMLCacheControl)
			if ct := mime.TypeByExtension(path.Ext(key)); ct != "" {
				h.Set("Content-Type", ct)
			}
			http.ServeContent(w, r, key, time.Time{}, bytes.NewReader(b))
			return
		}
		if _, err := os.Stat(dir); err != nil {
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("Cache-Control", console.HTMLCacheControl)
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("the console is not built: run `make dev` (or `node console/build.mjs`)\n"))
			return
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(key)))
		if err != nil {
			consoleDenied(w)
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || st.IsDir() {
			consoleDenied(w)
			return
		}
		if strings.HasPrefix(key, "assets/") {
			h.Set("Cache-Control", console.AssetCacheControl)
		} else {
			h.Set("Cache-Control", console.HTMLCacheControl)
		}
		if ct := mime.TypeByExtension(path.Ext(key)); ct != "" {
			h.Set("Content-Type", ct)
		}
		// No If-Modified-Since games: the zero time keeps ServeContent from
		// sending Last-Modified, so the HTML is fetched whole each time.
		http.ServeContent(w, r, key, time.Time{}, f)
	})
}

// consoleKey maps a request path to the object key below the console's
// folder, as the viewer-request function and the origin's path do; ok is
// false for a path outside it or one that climbs out.
func consoleKey(p string) (key string, ok bool) {
	if p == console.PathPrefix {
		return "index.html", true
	}
	rest, found := strings.CutPrefix(p, console.PathPrefix)
	if !found || rest == "" || strings.Contains(rest, "..") || strings.Contains(rest, "\\") {
		return "", false
	}
	return rest, true
}

func consoleDenied(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"))
}
