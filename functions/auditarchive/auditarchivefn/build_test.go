package auditarchivefn_test

import (
	"testing"

	"github.com/shortlink-dev/shortener/functions/auditarchive/auditarchivefn"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, auditarchivefn.Build, "AUDIT_ARCHIVE_BUCKET")
}
