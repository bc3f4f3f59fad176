package dynamo_test

import (
	"testing"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
