package pki

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"time"
)

// SignPolicy is Magnum's [x509] configuration section: which CSR
// extensions and key usages a signed certificate may carry.
type SignPolicy struct {
	// AllowCA lets a CSR ask for the CA flag and the certSign/cRLSign key
	// usages ([x509] allow_ca, default false).
	AllowCA bool
	// AllowedExtensions are extension names as Python's cryptography names
	// them ([x509] allowed_extensions).
	AllowedExtensions []string
	// AllowedKeyUsage are key usage names ([x509] allowed_key_usage).
	AllowedKeyUsage []string
	// Validity is [x509] term_of_validity.
	Validity time.Duration
}

// DefaultSignPolicy is Magnum's default [x509] section.
func DefaultSignPolicy() SignPolicy {
	return SignPolicy{
		AllowedExtensions: []string{"keyUsage", "extendedKeyUsage", "subjectAltName", "basicConstraints", "subjectKeyIdentifier"},
		AllowedKeyUsage:   []string{"Digital Signature", "Key Encipherment", "Non Repudiation"},
		Validity:          DefaultLeafValidity,
	}
}

// ExtensionError is Magnum's CertificateValidationError: the CSR asks,
// critically, for an extension or key usage the policy refuses.
type ExtensionError struct{ Extension string }

func (e *ExtensionError) Error() string {
	return fmt.Sprintf("Extension '%s' not allowed", e.Extension)
}

// InvalidCSRError is Magnum's InvalidCsr.
type InvalidCSRError struct{ Reason string }

func (e *InvalidCSRError) Error() string { return "Received invalid csr: " + e.Reason }

// Extension OIDs and the names Python's cryptography gives them (the names
// Magnum's allowed_extensions option uses).
var extensionNames = map[string]string{
	"2.5.29.14":               "subjectKeyIdentifier",
	"2.5.29.15":               "keyUsage",
	"2.5.29.17":               "subjectAltName",
	"2.5.29.18":               "issuerAltName",
	"2.5.29.19":               "basicConstraints",
	"2.5.29.30":               "nameConstraints",
	"2.5.29.31":               "cRLDistributionPoints",
	"2.5.29.32":               "certificatePolicies",
	"2.5.29.33":               "policyMappings",
	"2.5.29.35":               "authorityKeyIdentifier",
	"2.5.29.36":               "policyConstraints",
	"2.5.29.37":               "extendedKeyUsage",
	"2.5.29.46":               "freshestCRL",
	"2.5.29.54":               "inhibitAnyPolicy",
	"1.3.6.1.5.5.7.1.1":       "authorityInfoAccess",
	"1.3.6.1.5.5.7.1.11":      "subjectInfoAccess",
	"1.3.6.1.5.5.7.1.24":      "TLSFeature",
	"1.3.6.1.5.5.7.48.1.5":    "OCSPNoCheck",
	"1.3.6.1.4.1.11129.2.4.2": "signedCertificateTimestampList",
}

// ExtensionName is the name Magnum shows for an extension OID (the dotted
// OID when it has none).
func ExtensionName(oid asn1.ObjectIdentifier) string {
	if n, ok := extensionNames[oid.String()]; ok {
		return n
	}
	return oid.String()
}

var (
	oidKeyUsage         = asn1.ObjectIdentifier{2, 5, 29, 15}
	oidBasicConstraints = asn1.ObjectIdentifier{2, 5, 29, 19}
)

// keyUsageNames are the KeyUsage bits in bit order, named as Magnum's
// allowed_key_usage option names them.
var keyUsageNames = []string{
	"Digital Signature", "Non Repudiation", "Key Encipherment", "Data Encipherment",
	"Key Agreement", "Certificate Sign", "CRL Sign", "Encipher Only", "Decipher Only",
}

const (
	bitKeyAgreement = 4
	bitEncipherOnly = 7
	bitDecipherOnly = 8
)

// ParseCSR decodes a PEM certificate signing request and checks its
// signature (proof that the requester holds the private key).
func ParseCSR(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || (block.Type != "CERTIFICATE REQUEST" && block.Type != "NEW CERTIFICATE REQUEST") {
		return nil, &InvalidCSRError{Reason: "not a PEM CERTIFICATE REQUEST"}
	}
	csr, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, &InvalidCSRError{Reason: err.Error()}
	}
	if err := csr.CheckSignature(); err != nil {
		return nil, &InvalidCSRError{Reason: err.Error()}
	}
	switch k := csr.PublicKey.(type) {
	case *rsa.PublicKey:
		// Magnum takes any size; a key below 2048 bits has been breakable
		// for years, and the certificate may be cluster-admin.
		if k.N.BitLen() < 2048 {
			return nil, &InvalidCSRError{Reason: fmt.Sprintf("RSA key of %d bits, at least 2048 are required", k.N.BitLen())}
		}
	case *ecdsa.PublicKey, ed25519.PublicKey:
	default:
		return nil, &InvalidCSRError{Reason: fmt.Sprintf("unsupported public key type %T", k)}
	}
	return csr, nil
}

// Sign issues a certificate for a PEM CSR from the CA, as Magnum's
// x509.sign does: the CSR's subject, notBefore one day back, notAfter
// Validity ahead, a random serial, SHA-256, and the CSR's extensions
// filtered by the policy (an extension outside the allowed list is dropped,
// or refused when critical; disallowed key usages likewise; the CA flag is
// cleared, or refused when critical). It returns the PEM certificate.
func Sign(csrPEM []byte, ca KeyPair, pol SignPolicy, now time.Time) ([]byte, error) {
	csr, err := ParseCSR(csrPEM)
	if err != nil {
		return nil, err
	}
	exts, err := FilterExtensions(csr.Extensions, pol)
	if err != nil {
		return nil, err
	}
	caCert, caKey, err := ca.Parse()
	if err != nil {
		return nil, fmt.Errorf("reading the CA: %w", err)
	}
	serial, err := randomSerial(rand.Reader)
	if err != nil {
		return nil, err
	}
	validity := pol.Validity
	if validity <= 0 {
		validity = DefaultLeafValidity
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		// RawSubject keeps the requested name byte for byte (attribute
		// order and string types), as Magnum copies csr.subject.
		RawSubject:      csr.RawSubject,
		NotBefore:       now.Add(-backdate).UTC(),
		NotAfter:        now.Add(validity).UTC(),
		ExtraExtensions: exts,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, csr.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// FilterExtensions applies Magnum's validator.filter_extensions.
func FilterExtensions(in []pkix.Extension, pol SignPolicy) ([]pkix.Extension, error) {
	allowedUsage := map[string]bool{}
	for _, u := range pol.AllowedKeyUsage {
		allowedUsage[u] = true
	}
	if !pol.AllowCA {
		delete(allowedUsage, "Certificate Sign")
		delete(allowedUsage, "CRL Sign")
	}
	var out []pkix.Extension
	for _, ext := range in {
		name := ExtensionName(ext.Id)
		if !slices.Contains(pol.AllowedExtensions, name) {
			if ext.Critical {
				return nil, &ExtensionError{Extension: name}
			}
			continue // Magnum drops a non-critical extension it does not allow
		}
		switch {
		case ext.Id.Equal(oidKeyUsage):
			e, keep, err := mergeKeyUsage(ext, allowedUsage)
			if err != nil {
				return nil, err
			}
			if !keep {
				continue
			}
			ext = e
		case ext.Id.Equal(oidBasicConstraints) && !pol.AllowCA:
			e, err := disallowCA(ext)
			if err != nil {
				return nil, err
			}
			ext = e
		}
		out = append(out, ext)
	}
	return out, nil
}

// mergeKeyUsage clears the usages the policy does not allow (refusing the
// CSR if the extension is critical). keep is false when no usage is left:
// Magnum would emit an empty bit string, which RFC 5280 forbids and some
// parsers reject, so keel leaves the extension out instead.
func mergeKeyUsage(ext pkix.Extension, allowed map[string]bool) (pkix.Extension, bool, error) {
	var bits asn1.BitString
	if rest, err := asn1.Unmarshal(ext.Value, &bits); err != nil || len(rest) > 0 {
		return ext, false, &InvalidCSRError{Reason: "malformed keyUsage extension"}
	}
	var kept []int
	for i, name := range keyUsageNames {
		if bits.At(i) == 0 {
			continue
		}
		// cryptography raises ValueError reading encipher/decipher_only
		// when keyAgreement is clear, and Magnum then treats them as unset.
		if (i == bitEncipherOnly || i == bitDecipherOnly) && bits.At(bitKeyAgreement) == 0 {
			continue
		}
		if !allowed[name] {
			if ext.Critical {
				return ext, false, &ExtensionError{Extension: "keyUsage"}
			}
			continue
		}
		kept = append(kept, i)
	}
	if len(kept) == 0 {
		return ext, false, nil
	}
	value, err := asn1.Marshal(namedBits(kept))
	if err != nil {
		return ext, false, err
	}
	return pkix.Extension{Id: ext.Id, Critical: ext.Critical, Value: value}, true, nil
}

// namedBits encodes a DER named-bit list (no trailing zero bits).
func namedBits(set []int) asn1.BitString {
	top := slices.Max(set)
	b := make([]byte, top/8+1)
	for _, i := range set {
		b[i/8] |= 0x80 >> (i % 8)
	}
	return asn1.BitString{Bytes: b, BitLength: top + 1}
}

type basicConstraints struct {
	IsCA       bool `asn1:"optional"`
	MaxPathLen int  `asn1:"optional,default:-1"`
}

// disallowCA clears the CA flag (refusing a critical request for it).
func disallowCA(ext pkix.Extension) (pkix.Extension, error) {
	var bc basicConstraints
	if rest, err := asn1.Unmarshal(ext.Value, &bc); err != nil || len(rest) > 0 {
		return ext, &InvalidCSRError{Reason: "malformed basicConstraints extension"}
	}
	if !bc.IsCA {
		return ext, nil
	}
	if ext.Critical {
		return ext, &ExtensionError{Extension: "basicConstraints"}
	}
	value, err := asn1.Marshal(struct{}{}) // SEQUENCE {}: cA FALSE, no path length
	if err != nil {
		return ext, err
	}
	return pkix.Extension{Id: ext.Id, Critical: false, Value: value}, nil
}

// IsPolicyError reports whether err is the caller's fault (a bad or
// refused CSR) rather than the server's.
func IsPolicyError(err error) bool {
	var ee *ExtensionError
	var ie *InvalidCSRError
	return errors.As(err, &ee) || errors.As(err, &ie)
}
