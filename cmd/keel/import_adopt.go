package main

// keel import --adopt: the management cluster to find the driver's
// Clusters on (magnumimport.NewFinder reads them).

import (
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/magnumimport"
)

func newClusterFinder(kubeconfig string) (magnumimport.Finder, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	return magnumimport.NewFinder(c), nil
}
