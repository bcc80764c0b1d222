package observer

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
)

// A CAPO condition that is False because OpenStack refused a quota is a
// failure (CAPO retries it for ever); any other False condition, or a
// quota message on a True one, is not.
func TestQuotaExceededIsAFailure(t *testing.T) {
	for _, tc := range []struct {
		name, message string
		status        corev1.ConditionStatus
		failure       bool
	}{
		{"neutron", "Failed to reconcile security groups: Expected HTTP response code [201] when accessing [POST http://127.0.0.1:19696/v2.0/security-groups], but got 409 instead: {\"NeutronError\": {\"type\": \"OverQuota\", \"message\": \"Quota exceeded for resources: ['security_group'].\", \"detail\": \"\"}}", corev1.ConditionFalse, true},
		{"nova", "error creating Openstack instance: Quota exceeded for instances: Requested 1, but already used 1 of 1 instances", corev1.ConditionFalse, true},
		{"cinder volumes", "VolumeLimitExceeded: Maximum number of volumes allowed (2) exceeded for quota 'volumes'.", corev1.ConditionFalse, true},
		{"cinder gigabytes", "Requested volume or snapshot exceeds allowed gigabytes quota. Requested 50G, quota is 10G and 0G has been consumed.", corev1.ConditionFalse, true},
		{"octavia", "Quota has been met for resources: Load Balancer", corev1.ConditionFalse, true},
		{"transient", "Failed to reconcile router: 503 Service Unavailable", corev1.ConditionFalse, false},
		{"true condition", "Quota exceeded for resources: ['port'].", corev1.ConditionTrue, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conds := clusterv1beta1.Conditions{{Type: "SecurityGroupsReady", Status: tc.status, Reason: "SecurityGroupReconcileFailed", Message: tc.message}}
			got := quotaFailure(conds)
			if want := "SecurityGroupsReady: SecurityGroupReconcileFailed: " + tc.message; tc.failure && got != want {
				t.Fatalf("failure %q, want %q", got, want)
			}
			if !tc.failure && got != "" {
				t.Fatalf("failure %q, want none", got)
			}
		})
	}
}
