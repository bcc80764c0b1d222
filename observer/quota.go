package observer

import (
	"regexp"

	corev1 "k8s.io/api/core/v1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
)

// overQuota matches OpenStack's own words for a quota exceeded: Neutron's
// OverQuota ("Quota exceeded for resources: ['security_group']"), Nova's
// ("Quota exceeded for instances: …"), Cinder's ("… exceeded for quota
// 'volumes'", "exceeds allowed gigabytes quota") and Octavia's ("Quota has
// been met for resources: Load Balancer").
var overQuota = regexp.MustCompile(`Quota exceeded for |exceeded for quota|exceeds allowed \w+ quota|Quota has been met for resources`)

// quotaFailure is the first False condition whose message is a quota
// exceeded, as "Type: Reason: message", or "". CAPO v0.14.7 reports a
// Neutron quota exceeded while it builds the cluster's network, router or
// security groups as a transient error and retries for ever, so the
// cluster would wait until create_timeout: nothing changes until the
// operator raises the quota or frees resources, which is what a failure
// tells them. Status is derived from what is observed, so once CAPO gets
// past it (the quota raised), the operation is no longer failed.
func quotaFailure(conds clusterv1beta1.Conditions) string {
	for _, c := range conds {
		if c.Status == corev1.ConditionFalse && overQuota.MatchString(c.Message) {
			return joinNonEmpty(string(c.Type), c.Reason, c.Message)
		}
	}
	return ""
}
