package gitstore

// The trailers keel writes in its commits' messages: the API's request,
// the caller's project and user, and the operation (status.Op…), which
// the read model and review mode read back.
const (
	TrailerRequestID = "Keel-Request-Id"
	TrailerProject   = "Keel-Project"
	TrailerUser      = "Keel-User"
	TrailerOperation = "Keel-Operation"
	// TrailerImport names the source of keel import's commits ("magnum"):
	// those of magnumimport, and the one that renders adopted clusters.
	TrailerImport = "Keel-Import"
)
