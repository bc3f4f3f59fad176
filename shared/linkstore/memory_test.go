package linkstore_test

import (
	"testing"
	"time"

	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
)

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) linkstore.Store {
		return linkstore.NewMemory(now)
	})
}

func TestMemoryTags(t *testing.T) {
	storetest.RunTags(t, func(t *testing.T, now func() time.Time) linkstore.Store {
		return linkstore.NewMemory(now)
	})
}
