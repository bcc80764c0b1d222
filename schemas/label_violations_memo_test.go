package schemas

import (
	"slices"
	"testing"
)

// A label set's violations are remembered, and what a caller does with the
// returned slice does not change what the next caller gets.
func TestLabelViolationsAreRememberedExactly(t *testing.T) {
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{LabelBootVolumeSize: "big", LabelKubeTag: "v1.33.4"}
	first, _ := c.ValidateLabels(ScopeCluster, bad, ValidateOptions{})
	if len(first) == 0 {
		t.Fatal("boot_volume_size=big was accepted")
	}
	want := slices.Clone(first)
	first[0].Message = "scribbled"
	again, _ := c.ValidateLabels(ScopeCluster, bad, ValidateOptions{})
	if !slices.Equal(again, want) {
		t.Fatalf("second validation: %v, want %v", again, want)
	}
	if n := c.labelMemo.Len(); n != 1 {
		t.Fatalf("%d label sets remembered, want 1", n)
	}
	good, _ := c.ValidateLabels(ScopeCluster, map[string]string{LabelKubeTag: "v1.33.4"}, ValidateOptions{})
	if len(good) != 0 {
		t.Fatalf("a valid set got %v", good)
	}
}
