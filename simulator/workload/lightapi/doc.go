// Package lightapi is a light, in-memory Kubernetes API server for
// simulated workload clusters: one http.Handler per cluster over one
// Store, costing kilobytes per cluster where a kube-apiserver process
// costs hundreds of megabytes. It speaks enough of the Kubernetes API for
// Cluster API's controllers, client-go (typed clients, informers with
// WatchList, discovery), controller-runtime's client and RESTMapper, the
// dynamic client and kubectl get.
//
// Objects are stored as JSON of any kind, keyed by group/resource,
// namespace and name. Built-in resources are served from the start; a
// CustomResourceDefinition's served versions are served once it is
// created, and it is marked NamesAccepted and Established at once. Every
// object's content apart from metadata and status is interned process-wide
// by hash, so the large objects every cluster receives (addon CRDs) are
// held once.
//
// Authentication is the caller's: its TLS listener verifies client
// certificates, and this handler answers 401 to a request without a
// verified chain except on /healthz, /livez, /readyz and /version. There
// is no authorization: every authenticated user is a cluster admin.
//
// Simplified or missing, compared with kube-apiserver:
//   - no validation or defaulting beyond kind, name and namespace (a
//     missing apiVersion or kind is taken from the path); no
//     admission, webhooks, garbage collection by ownerReferences, or
//     PodDisruptionBudget enforcement on eviction;
//   - status sent on create is kept (a real server resets it for most
//     kinds);
//   - deletion is immediate unless finalizers hold it (no graceful pod
//     termination); deleting a namespace deletes its objects at once;
//   - server-side apply has no field ownership (see handler.patch);
//   - list ignores limit, continue and resourceVersionMatch (returning
//     everything, as a server may); field selectors match any field path;
//     a watch filters events by the object's new state (no synthetic
//     DELETED when an object stops matching a selector);
//   - CRD versions share storage, converted only by rewriting apiVersion;
//   - JSON only: protobuf request bodies of built-in kinds are decoded,
//     but protobuf and Table requests get JSON, which clients accept;
//     metadata-only requests (as=PartialObjectMetadata) get metadata;
//     unaggregated discovery only, no OpenAPI;
//   - watch history is per store, not per resource, and bounded
//     (SetHistorySize); a watch or bookmark reports versions of the store;
//   - subresources other than status and pods/eviction answer 404;
//     pods/portforward is intercepted by the caller.
package lightapi
