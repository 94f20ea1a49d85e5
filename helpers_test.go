package numerus_test

import (
	"time"

	"github.com/numerus-closus/numerus"
)

// t0 is the instant every test starts from.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const year = 365 * 24 * time.Hour

func sameStatus(a, b numerus.Status) bool {
	return a.Limit == b.Limit && a.Remaining == b.Remaining && a.Full.Equal(b.Full)
}
