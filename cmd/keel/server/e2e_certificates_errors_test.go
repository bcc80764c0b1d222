package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The certificate API's refusals carry Magnum's status and message, in
// Magnum's error body: an unknown attribute, an unknown cluster (400 in a
// POST body), a CSR asking critically for a disallowed extension, an
// unknown ca_cert_type, and a PATCH with an empty octet-stream body.
func TestCertificateAPIErrors(t *testing.T) {
	in, sc := startKeel(t, "1.12")
	uuid := newCertCluster(t, sc, "errs")
	csr := string(adminCSR(t))

	// A CSR with a critical nameConstraints extension.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:         pkix.Name{CommonName: "admin"},
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 30}, Critical: true, Value: []byte{0x30, 0x00}}},
	}, key)
	if err != nil {
		t.Fatal(err)
	}
	badCSR := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
	body := func(m map[string]any) string { b, _ := json.Marshal(m); return string(b) }

	for _, tc := range []struct {
		name, method, path, ctype, body string
		status                          int
		detail                          string
	}{
		{"bay_uuid", "POST", "/v1/certificates", "application/json", body(map[string]any{"bay_uuid": uuid, "csr": csr}), 400,
			"Unknown attribute for argument certificate: bay_uuid"},
		{"unknown cluster", "POST", "/v1/certificates", "application/json", body(map[string]any{"cluster_uuid": "nope", "csr": csr}), 400,
			"Cluster nope could not be found."},
		{"missing csr", "POST", "/v1/certificates", "application/json", body(map[string]any{"cluster_uuid": uuid}), 400,
			"Invalid input for field/attribute csr. Value: ''. Mandatory field missing."},
		{"disallowed extension", "POST", "/v1/certificates", "application/json", body(map[string]any{"cluster_uuid": uuid, "csr": badCSR}), 400,
			"Extension 'nameConstraints' not allowed"},
		{"garbage csr", "POST", "/v1/certificates", "application/json", body(map[string]any{"cluster_uuid": uuid, "csr": "hello"}), 400,
			"Received invalid csr"},
		{"bad ca type", "POST", "/v1/certificates", "application/json", body(map[string]any{"cluster_uuid": uuid, "csr": csr, "ca_cert_type": "root"}), 400,
			"Invalid input for field/attribute ca_cert_type. Value: 'root'."},
		{"bad ca type query", "GET", "/v1/certificates/" + uuid + "?ca_cert_type=root", "", "", 400, "ca_cert_type"},
		{"unknown query", "GET", "/v1/certificates/" + uuid + "?x=1", "", "", 400, `Unknown argument: "x"`},
		{"unknown cluster GET", "GET", "/v1/certificates/nope", "", "", 404, "Cluster nope could not be found."},
		{"rotate, empty octet-stream", "PATCH", "/v1/certificates/" + uuid, "application/octet-stream", "", 400,
			"Rotating the CA certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, in.URL+tc.path, strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			req.Header.Set("Accept", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var e struct {
				Errors []struct {
					Code   string `json:"code"`
					Status int    `json:"status"`
					Detail string `json:"detail"`
				} `json:"errors"`
			}
			if err := json.Unmarshal(raw, &e); err != nil || len(e.Errors) != 1 {
				t.Fatalf("%d %s", resp.StatusCode, raw)
			}
			if resp.StatusCode != tc.status || e.Errors[0].Status != tc.status || e.Errors[0].Code != "client" ||
				!strings.Contains(e.Errors[0].Detail, tc.detail) {
				t.Errorf("got %d %s, want %d containing %q", resp.StatusCode, raw, tc.status, tc.detail)
			}
		})
	}

	// The etcd and front-proxy CAs are distinct from the Kubernetes CA.
	pems := map[string]string{}
	for _, typ := range []string{"kubernetes", "etcd", "front_proxy"} {
		resp, err := http.Get(in.URL + "/v1/certificates/" + uuid + "?ca_cert_type=" + typ)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			PEM string `json:"pem"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != 200 || out.PEM == "" {
			t.Fatalf("%s: %d", typ, resp.StatusCode)
		}
		pems[typ] = out.PEM
	}
	if pems["kubernetes"] == pems["etcd"] || pems["etcd"] == pems["front_proxy"] || pems["kubernetes"] == pems["front_proxy"] {
		t.Error("two CA types returned the same CA")
	}
}
