package restapi

import (
	"strings"

	"github.com/openkeel/keel/schemas"
)

// validateLabels checks a label set against the catalogue before anything is
// committed: a bad value, a near-miss of a known label or (in strict mode) an
// unknown label is a 400 naming every offending label and what is allowed.
func (s *Server) validateLabels(scope schemas.Scope, labels map[string]string) error {
	violations, _ := s.catalogue().ValidateLabels(scope, labels, s.cfg.LabelOptions)
	if len(violations) == 0 {
		return nil
	}
	msgs := make([]string, len(violations))
	for i, v := range violations {
		msgs[i] = v.String()
	}
	return badRequest("Invalid labels: %s", strings.Join(msgs, "; "))
}

func (s *Server) catalogue() *schemas.Catalogue {
	if s.cfg.Catalogue != nil {
		return s.cfg.Catalogue
	}
	return schemas.Default()
}
