package compiler

import (
	"bytes"
	"testing"
)

// The same intent gives the same bytes, whatever order the nodegroups and
// map entries come in.
func TestCompileIsDeterministic(t *testing.T) {
	in := testInputs(t)["three-nodegroups"]
	a, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		rev := in
		rev.NodeGroups = nil
		for j := len(in.NodeGroups) - 1; j >= 0; j-- {
			rev.NodeGroups = append(rev.NodeGroups, in.NodeGroups[j])
		}
		b, err := Compile(rev)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(MarshalDocuments(a), MarshalDocuments(b)) {
			t.Fatal("compiling the same cluster twice gave different bytes")
		}
	}
}
