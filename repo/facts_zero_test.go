package repo

import (
	"reflect"
	"testing"

	"github.com/openkeel/keel/compiler"
)

// isZeroFacts tells "no facts given" from facts: every field of
// compiler.Facts, set alone, makes facts non-zero (a field added to Facts
// and forgotten here would make WriteCluster drop it).
func TestIsZeroFactsCoversEveryField(t *testing.T) {
	if !isZeroFacts(compiler.Facts{}) {
		t.Fatal("zero facts are not zero")
	}
	typ := reflect.TypeOf(compiler.Facts{})
	for i := 0; i < typ.NumField(); i++ {
		var f compiler.Facts
		v := reflect.ValueOf(&f).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Map:
			m := reflect.MakeMap(v.Type())
			m.SetMapIndex(reflect.ValueOf("k"), reflect.Zero(v.Type().Elem()))
			v.Set(m)
		default:
			t.Fatalf("field %s: kind %s not handled by this test", typ.Field(i).Name, v.Kind())
		}
		if isZeroFacts(f) {
			t.Errorf("facts with only %s set count as not given", typ.Field(i).Name)
		}
	}
}
