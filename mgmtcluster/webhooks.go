package mgmtcluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// capiProviders are the Cluster API providers whose CRDs and webhooks the
// management cluster installs, by folder in the cluster-api module.
var capiProviders = []string{"core", "bootstrap/kubeadm", "controlplane/kubeadm"}

// kustomization is the part of a provider's kustomization.yaml that
// clusterctl's install applies on top of the generated CRDs and webhook
// configurations and that matters here.
type kustomization struct {
	NamePrefix string `json:"namePrefix"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels"`
	CommonLabels map[string]string `json:"commonLabels"`
}

func readKustomization(path string) (kustomization, error) {
	var k kustomization
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return k, nil
	}
	if err != nil {
		return k, err
	}
	return k, yaml.Unmarshal(data, &k)
}

// readCRDs reads the CRDs of dirs (CRDDirs) with the labels their
// config/crd/kustomization.yaml adds. Those are the contract labels
// (cluster.x-k8s.io/v1beta2: v1beta2): the Cluster API controllers read them
// to find which apiVersion of a provider's kind to use (an
// OpenStackClusterTemplate named in a ClusterClass), and refuse references
// to kinds whose CRD has none. A released provider's components carry them;
// the config/crd/bases files do not.
func readCRDs(dirs []string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var all []*apiextensionsv1.CustomResourceDefinition
	for _, dir := range dirs {
		o := envtest.CRDInstallOptions{Paths: []string{dir}, ErrorIfPathMissing: true}
		if err := envtest.ReadCRDFiles(&o); err != nil {
			return nil, err
		}
		k, err := readKustomization(filepath.Join(dir, "..", "kustomization.yaml"))
		if err != nil {
			return nil, err
		}
		labels := maps.Clone(k.CommonLabels)
		for _, l := range k.Labels {
			if labels == nil {
				labels = map[string]string{}
			}
			maps.Copy(labels, l.Pairs)
		}
		for _, crd := range o.CRDs {
			if len(labels) > 0 {
				if crd.Labels == nil {
					crd.Labels = map[string]string{}
				}
				maps.Copy(crd.Labels, labels)
			}
		}
		all = append(all, o.CRDs...)
	}
	return all, nil
}

// addWebhooks makes env install Cluster API's webhook configurations and
// turn on CRD conversion through the same local server.
func addWebhooks(env *envtest.Environment, o Options) error {
	capi := o.CAPIDir
	if capi == "" {
		var err error
		if capi, err = ModuleDir(CAPIModule); err != nil {
			return err
		}
	}
	w := &env.WebhookInstallOptions
	w.LocalServingHost = "127.0.0.1"
	for _, p := range capiProviders {
		k, err := readKustomization(filepath.Join(capi, p, "config", "default", "kustomization.yaml"))
		if err != nil {
			return err
		}
		mut, val, err := ReadWebhookConfigurations(filepath.Join(capi, p, "config", "webhook", "manifests.yaml"))
		if err != nil {
			return err
		}
		// Every provider names its configurations
		// mutating-webhook-configuration and validating-webhook-configuration;
		// installed as they are, each would replace the previous provider's.
		// Their kustomizations prefix the names (capi-, ...), so does this.
		for _, m := range mut {
			m.Name = k.NamePrefix + m.Name
		}
		for _, v := range val {
			v.Name = k.NamePrefix + v.Name
		}
		w.MutatingWebhooks = append(w.MutatingWebhooks, mut...)
		w.ValidatingWebhooks = append(w.ValidatingWebhooks, val...)
	}
	// envtest turns on conversion only for kinds its scheme can convert
	// through controller-runtime's Hub/Convertible interfaces, which Cluster
	// API v1.14 types do not implement (their converters are registered with
	// the webhook builder instead), and would otherwise strip conversion.
	// Every multi-version CRD here is Cluster API's, and a released Cluster
	// API converts every one of them by webhook; the CAPO CRDs serve a single
	// version, so the apiserver never calls a converter for them.
	w.IgnoreSchemeConvertible = true
	return nil
}

// ReadWebhookConfigurations reads the webhook configurations of a
// controller-gen manifests.yaml.
func ReadWebhookConfigurations(path string) ([]*admissionv1.MutatingWebhookConfiguration, []*admissionv1.ValidatingWebhookConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading webhook configurations: %w", err)
	}
	var mut []*admissionv1.MutatingWebhookConfiguration
	var val []*admissionv1.ValidatingWebhookConfiguration
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		switch tm.Kind {
		case "MutatingWebhookConfiguration":
			m := &admissionv1.MutatingWebhookConfiguration{}
			if err := yaml.Unmarshal(doc, m); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			mut = append(mut, m)
		case "ValidatingWebhookConfiguration":
			v := &admissionv1.ValidatingWebhookConfiguration{}
			if err := yaml.Unmarshal(doc, v); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			val = append(val, v)
		}
	}
	return mut, val, nil
}
