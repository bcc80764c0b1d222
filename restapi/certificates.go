package restapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/internal/pki"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/body"
)

// Magnum's certificate API: the cluster CA (GET), signing a CSR with it
// (POST; `openstack coe cluster config` and `coe ca sign`) and CA rotation
// (PATCH). The CAs are the cluster's kubeadm CAs, read from the cluster's
// SOPS-encrypted key document in Git (repo.LoadPKI) and decrypted
// in memory with keel's age identity.

var certificateFields = []body.Field{
	{Name: "cluster_uuid", Kind: body.String, Mandatory: true, MinLen: 1, MaxLen: 255},
	{Name: "csr", Kind: body.String, Mandatory: true, MinLen: 1},
	{Name: "ca_cert_type", Kind: body.String},
	// Accepted and ignored, as WSME accepts any writable attribute.
	{Name: "pem", Kind: body.Any},
	{Name: "links", Kind: body.Any, ReadOnly: true},
	{Name: "created_at", Kind: body.Any, ReadOnly: true},
	{Name: "updated_at", Kind: body.Any, ReadOnly: true},
}

func (s *Server) certificateRoutes(r *gin.RouterGroup) {
	r.GET("/certificates/:ident", handle(s.getCertificate))
	r.POST("/certificates", handle(s.signCertificate))
	r.PATCH("/certificates/:ident", handle(s.rotateCA))
}

// clusterWriteOptions are the repo.WriteCluster options of every API write
// of a cluster: the keyring and cloud credential its Secrets need.
func (s *Server) clusterWriteOptions() []repo.WriteOption {
	if s.cfg.Secrets == nil {
		return nil
	}
	return []repo.WriteOption{repo.WithSecrets(s.cfg.Secrets)}
}

// caType validates a ca_cert_type. Magnum silently falls back to the
// Kubernetes CA for any value it does not know; keel refuses it (a typo
// would otherwise hand out the wrong CA).
func caType(v string, present bool) (string, error) {
	switch {
	case !present || v == "":
		return pki.CATypeKubernetes, nil
	case v == "front-proxy":
		return pki.CATypeFrontProxy, nil
	}
	for _, t := range pki.CATypes {
		if v == t {
			return v, nil
		}
	}
	return "", body.Invalid("ca_cert_type", v, "Value should be one of: "+strings.Join(pki.CATypes, ", "))
}

// clusterPKI reads and decrypts a cluster's key material.
func (s *Server) clusterPKI(v *readmodel.ClusterView) (*pki.ClusterPKI, error) {
	if s.cfg.Secrets == nil || s.cfg.Secrets.Keyring == nil {
		return nil, errors.New("keel runs without an age identity: certificates are unavailable")
	}
	sn, err := s.cfg.Store.SnapshotHead()
	if err != nil {
		return nil, err
	}
	p, err := repo.LoadPKI(sn, v.Dir, s.cfg.Secrets.Keyring)
	if errors.Is(err, repo.ErrNoPKI) {
		return nil, apierr.NotFound("Certificate for cluster %s could not be found.", v.UUID)
	}
	return p, err
}

// caPhase is the phase of a CA rotation in progress on the cluster, ""
// when none is.
func caPhase(v *readmodel.ClusterView) string {
	if v.CARotation.InProgress() {
		return v.CARotation.Phase
	}
	return ""
}

// clusterCA is the CA of type typ that signs the cluster's certificates
// (during a rotation, the Kubernetes CA of its phase).
func (s *Server) clusterCA(v *readmodel.ClusterView, typ string) (*pki.KeyPair, error) {
	p, err := s.clusterPKI(v)
	if err != nil {
		return nil, err
	}
	if typ == pki.CATypeKubernetes {
		return p.SigningCA(caPhase(v)), nil
	}
	return p.CAFor(typ)
}

// trustedCA is what GET /v1/certificates returns: the CA of type typ, and
// during a rotation of the Kubernetes CA both CAs clients must trust while
// machines present either (the one that signs first).
func (s *Server) trustedCA(v *readmodel.ClusterView, typ string) ([]byte, error) {
	p, err := s.clusterPKI(v)
	if err != nil {
		return nil, err
	}
	if typ == pki.CATypeKubernetes {
		return p.TrustBundle(caPhase(v)), nil
	}
	ca, err := p.CAFor(typ)
	if err != nil {
		return nil, err
	}
	return ca.Cert, nil
}

func (s *Server) getCertificate(c *gin.Context) error {
	if err := checkQuery(c, "ca_cert_type"); err != nil {
		return err
	}
	q, present := c.GetQuery("ca_cert_type")
	typ, err := caType(q, present)
	if err != nil {
		return err
	}
	// No all_tenants here in Magnum: an admin sees its own project only.
	v, err := s.lookupCluster(c, c.Param("ident"), false)
	if err != nil {
		return err
	}
	if err := s.enforce(c, "certificate:get", clusterTarget(v)); err != nil {
		return err
	}
	pem, err := s.trustedCA(v, typ)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, certificateView{ClusterUUID: v.UUID, PEM: string(pem), Links: links(c, "certificates", v.UUID)})
	return nil
}

func (s *Server) signCertificate(c *gin.Context) error {
	r, err := s.parseSignRequest(c)
	var cert []byte
	if err == nil {
		cert, err = s.sign(r)
	}
	if err != nil {
		return err
	}
	// The CSR itself is not logged (Magnum logs request bodies at DEBUG,
	// CSRs included); the issued subject is, for the audit trail.
	apierr.Log(c).Info("signed a certificate", "cluster", r.cluster.UUID, "ca_cert_type", r.caType, "user", auth.Of(c).UserID)
	c.JSON(http.StatusCreated, certificateView{ClusterUUID: r.cluster.UUID, CSR: &r.csr, PEM: string(cert),
		Links: links(c, "certificates", r.cluster.UUID), CACertType: r.caTypeGiven})
	return nil
}

// signRequest is a CSR to sign with a cluster's CA (caType; caTypeGiven
// as the body named it, nil when it did not).
type signRequest struct {
	cluster     *readmodel.ClusterView
	caType, csr string
	caTypeGiven *string
}

// parseSignRequest reads a certificate POST in Magnum's order: the CA
// type, the cluster (resolved while the body is parsed, so an unknown one
// is a 400), the policy on it, then the mandatory CSR.
func (s *Server) parseSignRequest(c *gin.Context) (*signRequest, error) {
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, "certificate", certificateFields)
	if perr != nil {
		return nil, perr
	}
	r := &signRequest{caTypeGiven: b.Str("ca_cert_type"), csr: derefStr(b.Str("csr"))}
	typ, err := caType(derefStr(r.caTypeGiven), r.caTypeGiven != nil)
	if err != nil {
		return nil, err
	}
	r.caType = typ
	if r.cluster, err = s.lookupCluster(c, derefStr(b.Str("cluster_uuid")), false); err != nil {
		var e *apierr.Error
		if errors.As(err, &e) && e.Status == http.StatusNotFound {
			e.Status = http.StatusBadRequest
		}
		return nil, err
	}
	if err := s.enforce(c, "certificate:create", clusterTarget(r.cluster)); err != nil {
		return nil, err
	}
	if r.csr == "" {
		return nil, body.Invalid("csr", "", "Mandatory field missing.")
	}
	return r, nil
}

// sign signs the request's CSR with its cluster's CA under the site's
// [x509] policy (Magnum's defaults without one); a CSR the policy refuses
// is a 400.
func (s *Server) sign(r *signRequest) ([]byte, error) {
	ca, err := s.clusterCA(r.cluster, r.caType)
	if err != nil {
		return nil, err
	}
	pol := pki.DefaultSignPolicy()
	if s.cfg.SignPolicy != nil {
		pol = *s.cfg.SignPolicy
	}
	cert, err := pki.Sign([]byte(r.csr), *ca, pol, time.Now())
	if err != nil && pki.IsPolicyError(err) {
		return nil, apierr.BadRequest("%s", err.Error())
	}
	return cert, err
}

// rotateCA is PATCH /v1/certificates/{ident}: it commits the first phase
// of a CA rotation (ca_rotation.go) and answers 202, as Magnum does once
// its driver accepted the rotation. Unlike Magnum, nothing is changed
// when the rotation is refused (Magnum regenerates the CAs first and
// leaves the cluster UPDATE_FAILED). The body is ignored (the CLI sends
// none, as application/octet-stream).
func (s *Server) rotateCA(c *gin.Context) error {
	v, err := s.lookupCluster(c, c.Param("ident"), false)
	if err != nil {
		return err
	}
	if err := s.enforce(c, "certificate:rotate_ca", clusterTarget(v)); err != nil {
		return err
	}
	if err := s.caRotatable(c.Request.Context(), v, versionOf(c)); err != nil {
		return err
	}
	if err := s.startCARotation(c.Request.Context(), callerOf(c), v); err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, uuidReply{UUID: v.UUID})
	return nil
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
