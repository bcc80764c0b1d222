package server

import (
	"context"
	"log/slog"
)

// outage logs a retrying loop's failures once per outage, not once per
// try: the first failure with its error (at level), then the recovery.
type outage struct {
	log       *slog.Logger
	level     slog.Level
	failing   string // logged with the error when an outage starts
	recovered string // logged when it ends
	down      bool
}

// report records one try's outcome. A failure while ctx is being cancelled
// is shutdown, not an outage.
func (o *outage) report(ctx context.Context, err error) {
	switch {
	case err != nil && ctx.Err() == nil:
		if !o.down {
			o.log.Log(ctx, o.level, o.failing, "err", err)
		}
		o.down = true
	case err == nil && o.down:
		o.log.Info(o.recovered)
		o.down = false
	}
}
