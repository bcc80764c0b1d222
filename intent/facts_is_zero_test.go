package intent

import (
	"reflect"
	"testing"
)

// Facts.IsZero tells "no facts given" from facts: every field of Facts,
// set alone, makes facts non-zero (a field added to Facts and forgotten in
// IsZero would make repo.WriteCluster drop it).
func TestFactsIsZeroCoversEveryField(t *testing.T) {
	if !(Facts{}).IsZero() {
		t.Fatal("zero facts are not zero")
	}
	typ := reflect.TypeOf(Facts{})
	for i := 0; i < typ.NumField(); i++ {
		var f Facts
		v := reflect.ValueOf(&f).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Int64:
			v.SetInt(1)
		case reflect.Map:
			m := reflect.MakeMap(v.Type())
			m.SetMapIndex(reflect.ValueOf("k"), reflect.Zero(v.Type().Elem()))
			v.Set(m)
		default:
			t.Fatalf("field %s: kind %s not handled by this test", typ.Field(i).Name, v.Kind())
		}
		if f.IsZero() {
			t.Errorf("facts with only %s set count as not given", typ.Field(i).Name)
		}
	}
}
