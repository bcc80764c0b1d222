package occm

import "testing"

// cloud.conf carries the credential, region, endpoint type and CA file as
// OCCM's gcfg reader expects them, quoted, and the load-balancer settings.
func TestCloudConf(t *testing.T) {
	got := string(CloudConf(Cloud{
		AuthURL: "https://keystone.example.org/v3", Region: "RegionOne", Interface: "internalURL",
		ApplicationCredentialID: "id", ApplicationCredentialSecret: `se"cret`,
		CACert: "PEM", LBProvider: "ovn", LBMethod: "SOURCE_IP_PORT", CreateMonitor: true,
	}))
	want := `[Global]
auth-url = "https://keystone.example.org/v3"
region = "RegionOne"
os-endpoint-type = "internal"
application-credential-id = "id"
application-credential-secret = "se\"cret"
tls-insecure = "false"
ca-file = "/etc/config/ca.crt"

[LoadBalancer]
lb-provider = "ovn"
lb-method = "SOURCE_IP_PORT"
create-monitor = "true"
`
	if got != want {
		t.Fatalf("cloud.conf:\n%s\nwant:\n%s", got, want)
	}
}
