package keyed_test

import "time"

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
