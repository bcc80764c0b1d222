package pki

import (
	"bytes"
	"testing"
	"time"
)

// A rotation begins once, with a new CA named like the old one, and
// finishes once, the new CA becoming the CA; the other CAs never change.
func TestCARotationBeginsAndFinishesOnce(t *testing.T) {
	p := rotatedPKI(t)
	old, next := parseCert(t, p.CA.Cert), parseCert(t, p.NextCA.Cert)
	if next.Subject.CommonName != old.Subject.CommonName || bytes.Equal(next.SubjectKeyId, old.SubjectKeyId) {
		t.Errorf("new CA %s (key id %x), old %s (%x)", next.Subject, next.SubjectKeyId, old.Subject, old.SubjectKeyId)
	}
	if err := p.BeginCARotation(time.Now()); err == nil {
		t.Error("a second rotation began over the first")
	}
	q := *p
	if err := q.FinishCARotation(); err != nil {
		t.Fatal(err)
	}
	if !q.CA.Equal(*p.NextCA) || q.NextCA != nil || !q.EtcdCA.Equal(p.EtcdCA) {
		t.Error("finishing did not make the new CA the CA, alone")
	}
	if err := q.FinishCARotation(); err == nil {
		t.Error("finished a rotation never begun")
	}
}
