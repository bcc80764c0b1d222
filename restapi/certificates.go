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

// clusterCA reads and decrypts a cluster's CA of type typ.
func (s *Server) clusterCA(v *readmodel.ClusterView, typ string) (*pki.KeyPair, error) {
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
	if err != nil {
		return nil, err
	}
	return p.CAFor(typ)
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
	ca, err := s.clusterCA(v, typ)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, certificateView{ClusterUUID: v.UUID, PEM: string(ca.Cert), Links: links(c, "certificates", v.UUID)})
	return nil
}

func (s *Server) signCertificate(c *gin.Context) error {
	raw, _ := c.GetRawData()
	b, perr := body.Parse(raw, "certificate", certificateFields)
	if perr != nil {
		return perr
	}
	typ, err := caType(derefStr(b.Str("ca_cert_type")), b.Str("ca_cert_type") != nil)
	if err != nil {
		return err
	}
	ident := derefStr(b.Str("cluster_uuid"))
	v, err := s.lookupCluster(c, ident, false)
	if err != nil {
		// Magnum resolves the cluster while parsing the body, so an
		// unknown cluster is a 400 here.
		var e *apierr.Error
		if errors.As(err, &e) && e.Status == http.StatusNotFound {
			e.Status = http.StatusBadRequest
		}
		return err
	}
	if err := s.enforce(c, "certificate:create", clusterTarget(v)); err != nil {
		return err
	}
	csr := derefStr(b.Str("csr"))
	if csr == "" {
		return body.Invalid("csr", "", "Mandatory field missing.")
	}
	ca, err := s.clusterCA(v, typ)
	if err != nil {
		return err
	}
	pol := pki.DefaultSignPolicy()
	if s.cfg.SignPolicy != nil {
		pol = *s.cfg.SignPolicy
	}
	cert, err := pki.Sign([]byte(csr), *ca, pol, time.Now())
	if err != nil {
		if pki.IsPolicyError(err) {
			return apierr.BadRequest("%s", err.Error())
		}
		return err
	}
	// The CSR itself is not logged (Magnum logs request bodies at DEBUG,
	// CSRs included); the issued subject is, for the audit trail.
	apierr.Log(c).Info("signed a certificate", "cluster", v.UUID, "ca_cert_type", typ, "user", auth.Of(c).UserID)
	c.JSON(http.StatusCreated, certificateView{ClusterUUID: v.UUID, CSR: &csr, PEM: string(cert),
		Links: links(c, "certificates", v.UUID), CACertType: b.Str("ca_cert_type")})
	return nil
}

// rotateCA answers as Magnum does when the driver cannot rotate CAs (the
// Cluster API driver cannot: kubeadm's CAs are fixed for a cluster's life),
// but without Magnum's bug of regenerating the CAs first and leaving the
// cluster UPDATE_FAILED: nothing is changed. The body is ignored (the CLI
// sends none, as application/octet-stream).
func (s *Server) rotateCA(c *gin.Context) error {
	v, err := s.lookupCluster(c, c.Param("ident"), false)
	if err != nil {
		return err
	}
	if err := s.enforce(c, "certificate:rotate_ca", clusterTarget(v)); err != nil {
		return err
	}
	if tmpl, err := s.cfg.DB.GetTemplateByUUID(c.Request.Context(), v.ClusterTemplateID); err == nil && tmpl != nil && tmpl.TLSDisabled {
		return apierr.BadRequest("Rotating the CA certificate on a non-TLS cluster is not supported")
	}
	if st := v.Result.Status; !strings.HasSuffix(st, "_COMPLETE") || strings.HasPrefix(st, "DELETE") {
		return apierr.BadRequest("Rotating the CA certificate of a cluster in status %s is not supported.", st)
	}
	return apierr.BadRequest("'rotate_ca_certificate' is not supported by this driver.")
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
