package restapi

import (
	"testing"
	"time"
)

// A time is written as Magnum's API writes it (Python's isoformat of an
// aware datetime): whole seconds when it has no fraction, as keel's own
// times, else microseconds, as a row imported from PostgreSQL has them.
func TestTimestampMicrosecondsAsMagnum(t *testing.T) {
	for in, want := range map[time.Time]string{
		time.Date(2026, 12, 3, 13, 28, 52, 0, time.UTC):         "2026-12-03T13:28:52+00:00",
		time.Date(2026, 12, 3, 13, 28, 52, 908512000, time.UTC): "2026-12-03T13:28:52.908512+00:00",
		time.Date(2026, 12, 3, 13, 28, 52, 5000, time.UTC):      "2026-12-03T13:28:52.000005+00:00",
		time.Date(2026, 12, 3, 13, 28, 52, 999, time.UTC):       "2026-12-03T13:28:52+00:00", // below Python's precision
	} {
		if got := *timestamp(&in); got != want {
			t.Errorf("timestamp(%s) = %s, want %s", in.Format(time.RFC3339Nano), got, want)
		}
	}
}
