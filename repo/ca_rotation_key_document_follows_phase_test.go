package repo

import (
	"bytes"
	"testing"

	"github.com/openkeel/keel/intent"
)

// The key document follows the CA rotation phase cluster.yaml records: the
// trust phase makes the new CA beside the old one, a write in the same
// phase keeps the document's bytes, the finish phase makes the new CA the
// CA, and a sign phase without a new CA (a hand edit) is refused.
func TestCARotationKeyDocumentFollowsPhase(t *testing.T) {
	store, kr, opt, tmpl, st := keyedRepo(t)
	pkiDoc := func() []byte {
		sn, _ := store.SnapshotHead()
		data, err := sn.ReadFile(intent.PKIPath(st.Dir))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	sn, _ := store.SnapshotHead()
	before, err := LoadPKI(sn, st.Dir, kr)
	if err != nil {
		t.Fatal(err)
	}

	st.Cluster.CARotation = &intent.CARotation{Generation: 1, Phase: intent.CAPhaseSign}
	if err := write(t, store, tmpl, st, opt); err == nil {
		t.Fatal("a sign phase without a new CA in the key document was written")
	}
	st.Cluster.CARotation.Phase = intent.CAPhaseTrust
	if err := write(t, store, tmpl, st, opt); err != nil {
		t.Fatal(err)
	}
	trust := pkiDoc()
	sn, _ = store.SnapshotHead()
	during, err := LoadPKI(sn, st.Dir, kr)
	if err != nil || during.NextCA == nil || !bytes.Equal(during.CA.Cert, before.CA.Cert) {
		t.Fatalf("trust phase: the key document should hold the old CA and a new one (%v)", err)
	}
	if err := write(t, store, tmpl, st, opt); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pkiDoc(), trust) {
		t.Fatal("a second write in the trust phase changed the key document")
	}

	st.Cluster.CARotation.Phase = intent.CAPhaseFinish
	if err := write(t, store, tmpl, st, opt); err != nil {
		t.Fatal(err)
	}
	sn, _ = store.SnapshotHead()
	after, err := LoadPKI(sn, st.Dir, kr)
	if err != nil || after.NextCA != nil || !bytes.Equal(after.CA.Cert, during.NextCA.Cert) {
		t.Fatalf("finish phase: the new CA should be the CA, alone (%v)", err)
	}
}
