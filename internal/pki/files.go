package pki

// Names of a cluster's key material as files (kubeadm's file names): the
// entries of the certificates and data maps of the ClusterPKI document
// (intent.ClusterPKI) that keel writes and keel import fills from Magnum.
const (
	FileCACert         = "ca.crt"
	FileCAKey          = "ca.key"
	FileEtcdCert       = "etcd-ca.crt"
	FileEtcdKey        = "etcd-ca.key"
	FileFrontProxyCert = "front-proxy-ca.crt"
	FileFrontProxyKey  = "front-proxy-ca.key"
	FileSAPub          = "sa.pub"
	FileSAKey          = "sa.key"
	// A CA rotation's new CA (ca_rotation.go), present only while one is
	// under way.
	FileNextCACert = "ca-next.crt"
	FileNextCAKey  = "ca-next.key"
)

// Files splits p into its public files (certificates and the
// service-account public key, readable in Git) and its private keys (which
// SOPS encrypts).
func (p *ClusterPKI) Files() (public, private map[string]string) {
	public = map[string]string{
		FileCACert: string(p.CA.Cert), FileEtcdCert: string(p.EtcdCA.Cert),
		FileFrontProxyCert: string(p.FrontProxyCA.Cert), FileSAPub: string(p.ServiceAccount.Cert),
	}
	private = map[string]string{
		FileCAKey: string(p.CA.Key), FileEtcdKey: string(p.EtcdCA.Key),
		FileFrontProxyKey: string(p.FrontProxyCA.Key), FileSAKey: string(p.ServiceAccount.Key),
	}
	p.rotationFiles(public, private)
	return public, private
}

// rotationFiles adds a rotation's files, and nothing otherwise: the key
// documents of clusters never rotated (and their ciphertext) stay as they
// were.
func (p *ClusterPKI) rotationFiles(public, private map[string]string) {
	if p.NextCA != nil {
		public[FileNextCACert], private[FileNextCAKey] = string(p.NextCA.Cert), string(p.NextCA.Key)
	}
}

// FromFiles is Files' inverse (not validated: see Validate).
func FromFiles(public, private map[string]string) *ClusterPKI {
	kp := func(cert, key string) KeyPair {
		return KeyPair{Cert: []byte(public[cert]), Key: []byte(private[key])}
	}
	p := &ClusterPKI{
		CA:             kp(FileCACert, FileCAKey),
		EtcdCA:         kp(FileEtcdCert, FileEtcdKey),
		FrontProxyCA:   kp(FileFrontProxyCert, FileFrontProxyKey),
		ServiceAccount: kp(FileSAPub, FileSAKey),
	}
	if public[FileNextCACert] != "" || private[FileNextCAKey] != "" {
		next := kp(FileNextCACert, FileNextCAKey)
		p.NextCA = &next
	}
	return p
}
