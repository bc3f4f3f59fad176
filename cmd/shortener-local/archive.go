package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/functions/auditarchive/auditarchivefn"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/locals3"
	"github.com/shortlink-dev/shortener/internal/localstream"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// The local audit archive (SHORTENER_AUDIT_ARCHIVE=true, as the context
// auditArchive deploys it): the audit table's stream mapped to the
// auditarchive function, which puts its objects through the SDK into the
// S3 stand-in (internal/locals3), a bucket with Object Lock and the
// deployment's default retention, on a port of its own.
const (
	localArchiveBucket = "shortener-audit-archive"
	// localArchiveDays is the deployment's default retention
	// (infra.DefaultConfig, COMPLIANCE for 7 years): the stand-in is in
	// memory, so it is gone with the run whatever it says.
	localArchiveDays = 2555
	// auditArchivePath lists the archived objects and, with ?key= (and
	// &version_id=), answers one: read-only, for a person or a black-box
	// check. S3 itself is on the stand-in's own address.
	auditArchivePath = "/_local/audit-archive"
)

// archiveRun is the stand-in, its listener and the stream poller.
type archiveRun struct {
	s3  *locals3.Server
	srv *http.Server
	wg  sync.WaitGroup
	url string // the stand-in's endpoint
}

// startAuditArchive gives the audit table a stream if it has none (a
// table made before the option was on), starts the S3 stand-in and polls
// the stream into the function, built by its Build as its Lambda is, until
// ctx ends.
func startAuditArchive(ctx context.Context, cfg config.Config, c fnclients.Clients, db *dynamodb.Client, endpoint string, log *slog.Logger) (*archiveRun, error) {
	if err := ensureStream(ctx, db, cfg.AuditTable); err != nil {
		return nil, err
	}
	a := &archiveRun{s3: locals3.New(locals3.Options{Buckets: []locals3.Bucket{{
		Name: localArchiveBucket, ObjectLock: true,
		DefaultRetention: &locals3.Retention{Mode: locals3.Compliance, Days: localArchiveDays},
	}}})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("S3 stand-in: %w", err)
	}
	a.url = "http://" + ln.Addr().String()
	a.srv = &http.Server{Handler: a.s3, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	a.wg.Go(func() {
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("S3 stand-in stopped", "error", err.Error())
		}
	})
	cfg.AuditArchiveBucket = localArchiveBucket
	c.S3Endpoint = a.url
	h, err := auditarchivefn.Build(cfg, c)
	if err == nil {
		var poller *localstream.Poller
		poller, err = localstream.New(db, emulator.NewStreamsClient(endpoint), localstream.Options{
			// As deployed (infra/auditarchive): up to 1,000 records an object.
			Table: cfg.AuditTable, Handler: h.Handle, BatchSize: 1000, Region: emulator.Region,
			Log: log.With("component", "audit-stream-poller"),
		})
		if err == nil {
			a.wg.Go(func() {
				if err := poller.Run(ctx); err != nil {
					log.Error("audit stream poller stopped", "error", err.Error())
				}
			})
		}
	}
	if err != nil {
		a.srv.Close()
		a.wg.Wait()
		return nil, err
	}
	log.Info("audit archive", "s3", a.url, "bucket", localArchiveBucket, "objects", auditArchivePath)
	return a, nil
}

// ensureStream turns on table's stream, NEW_IMAGE, unless it has one.
func ensureStream(ctx context.Context, db *dynamodb.Client, table string) error {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil {
		return fmt.Errorf("describe %s: %w", table, err)
	}
	if s := out.Table.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		return nil
	}
	if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &table, StreamSpecification: &types.StreamSpecification{
		StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(tableschema.AuditArchiveStream)}}); err != nil {
		return fmt.Errorf("turn on the stream of %s: %w", table, err)
	}
	return dynamodb.NewTableExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: &table}, 30*time.Second)
}

// stop ends the stand-in once the poller (whose ctx the caller ended) has.
func (a *archiveRun) stop() {
	a.srv.Close()
	a.wg.Wait()
}

// archivedObject is one version in auditArchivePath's listing.
type archivedObject struct {
	Key            string            `json:"key"`
	VersionID      string            `json:"version_id"`
	IsLatest       bool              `json:"is_latest"`
	DeleteMarker   bool              `json:"delete_marker,omitempty"`
	Size           int               `json:"size"`
	ETag           string            `json:"etag,omitempty"`
	ChecksumSHA256 string            `json:"checksum_sha256,omitempty"`
	LockMode       string            `json:"lock_mode,omitempty"`
	RetainUntil    string            `json:"retain_until,omitempty"`
	LastModified   string            `json:"last_modified"`
	Metadata       map[string]string `json:"metadata,omitempty"`
}

// lateArchive serves auditArchivePath once the archive runs; 404 while
// it is off.
type lateArchive struct {
	a atomic.Pointer[archiveRun]
}

func (l *lateArchive) set(a *archiveRun) { l.a.Store(a) }

func (l *lateArchive) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: GET the listing, or one object with ?key=", http.StatusMethodNotAllowed)
		return
	}
	a := l.a.Load()
	if a == nil {
		http.Error(w, "the audit archive is off (SHORTENER_AUDIT_ARCHIVE=true turns it on)", http.StatusNotFound)
		return
	}
	vs, err := a.s3.Versions(localArchiveBucket)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if key := r.URL.Query().Get("key"); key != "" {
		version := r.URL.Query().Get("version_id")
		for _, v := range vs {
			if v.Key == key && !v.DeleteMarker && (v.VersionID == version || version == "" && v.IsLatest) {
				w.Header().Set("Content-Type", v.ContentType)
				w.Header().Set("Cache-Control", "no-store")
				_, _ = w.Write(v.Body)
				return
			}
		}
		http.Error(w, "no such object", http.StatusNotFound)
		return
	}
	out := struct {
		Bucket   string           `json:"bucket"`
		Endpoint string           `json:"endpoint"`
		Objects  []archivedObject `json:"objects"`
	}{Bucket: localArchiveBucket, Endpoint: a.url, Objects: []archivedObject{}}
	for _, v := range vs {
		o := archivedObject{Key: v.Key, VersionID: v.VersionID, IsLatest: v.IsLatest, DeleteMarker: v.DeleteMarker, Size: len(v.Body),
			ETag: v.ETag, LockMode: string(v.Mode), LastModified: v.LastModified.Format(time.RFC3339), Metadata: v.Metadata}
		if v.ChecksumAlgorithm == "SHA256" {
			o.ChecksumSHA256 = v.Checksum
		}
		if !v.RetainUntil.IsZero() {
			o.RetainUntil = v.RetainUntil.Format(time.RFC3339)
		}
		out.Objects = append(out.Objects, o)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(out)
}
