package reconciler

import (
	"context"
	"log/slog"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// A phase of a CA rotation is followed once it is done: the applies of a
// cluster rotated long ago read nothing more, and the next phase (or the
// next rotation) is followed again.
func TestCARotationFollowedOncePerPhase(t *testing.T) {
	ctx := context.Background()
	r := &Reconciler{client: env.Client, o: Options{Log: slog.New(slog.DiscardHandler)}, caFollowed: newLockedMap[string, string]()}
	ca := testCA(t, "once")
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kube-ca003-ca", Namespace: kube.Namespace},
		Data: map[string][]byte{corev1.TLSCertKey: ca.Cert, corev1.TLSPrivateKeyKey: ca.Key}})
	tg := target{id: "kube-ca003", stackID: "kube-ca003"}
	for _, tc := range []struct {
		rotation *intent.CARotation
		due      bool
	}{
		{nil, false},
		{&intent.CARotation{Generation: 1, Phase: intent.CAPhaseFinish}, true},
		{&intent.CARotation{Generation: 1, Phase: intent.CAPhaseFinish}, false},
		{&intent.CARotation{Generation: 2, Phase: intent.CAPhaseTrust}, true},
	} {
		tg.caRotation = tc.rotation
		why, due := r.followCARotation(ctx, tg)
		if why != "" || due != tc.due {
			t.Fatalf("%v: followCARotation = %q, due %v; want due %v", tc.rotation, why, due, tc.due)
		}
	}
}
