package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/openkeel/keel/internal/kube"
)

// LeaseName is the Lease keel replicas compete for in magnum-system.
const LeaseName = "keel-reconciler"

// leaderElect runs fns while this replica holds the Lease, and keeps
// competing for it until ctx is done. Every replica serves the API; only the
// leader applies the repository (two reconcilers would fight over teardown
// order and retries).
func leaderElect(ctx context.Context, cs kubernetes.Interface, log *slog.Logger, in *Instance, lt [3]time.Duration, fns []func(context.Context) error) error {
	host, _ := os.Hostname()
	// Unique per instance, even for two instances in one process.
	id := fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: LeaseName, Namespace: kube.Namespace},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	for ctx.Err() == nil {
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock:            lock,
			ReleaseOnCancel: true,
			LeaseDuration:   lt[0],
			RenewDeadline:   lt[1],
			RetryPeriod:     lt[2],
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(lctx context.Context) {
					log.Info("leading: reconciling the repository", "identity", id)
					// The previous leader may have applied commits this
					// replica's mirror has not fetched yet; reconciling an
					// older HEAD would tear down their clusters as orphans.
					if !catchUp(lctx, in, log) {
						return
					}
					done := make(chan struct{}, len(fns))
					for _, fn := range fns {
						go func() {
							if err := fn(lctx); err != nil && lctx.Err() == nil {
								in.errc <- err
							}
							done <- struct{}{}
						}()
					}
					for range fns {
						<-done
					}
				},
				OnStoppedLeading: func() { log.Info("no longer leading", "identity", id) },
			},
		})
	}
	return nil
}

// catchUp fetches the Git remote (if any) until it succeeds or leadership
// is lost; false when ctx ended first.
func catchUp(ctx context.Context, in *Instance, log *slog.Logger) bool {
	for warned := false; ; {
		err := in.Store.Sync(ctx)
		if err == nil {
			return true
		}
		if !warned {
			log.Warn("leading, but the Git remote cannot be fetched: not reconciling until it can", "err", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Second):
		}
	}
}

// leaseTiming is the election's LeaseDuration, RenewDeadline and
// RetryPeriod, defaulted.
func leaseTiming(o Options) [3]time.Duration {
	lt := [3]time.Duration{o.LeaseDuration, o.RenewDeadline, o.RetryPeriod}
	for i, d := range [3]time.Duration{15 * time.Second, 10 * time.Second, 2 * time.Second} {
		if lt[i] <= 0 {
			lt[i] = d
		}
	}
	return lt
}

// ValidateLeaseTiming refuses what client-go's elector would panic on:
// it needs LeaseDuration > RenewDeadline > 1.2 × RetryPeriod.
func ValidateLeaseTiming(o Options) error {
	lt := leaseTiming(o)
	if lt[0] <= lt[1] {
		return fmt.Errorf("the lease duration (%s) must be longer than the renew deadline (%s)", lt[0], lt[1])
	}
	if float64(lt[1]) <= leaderelection.JitterFactor*float64(lt[2]) {
		return fmt.Errorf("the renew deadline (%s) must be longer than %.1f × the retry period (%s)", lt[1], leaderelection.JitterFactor, lt[2])
	}
	return nil
}
