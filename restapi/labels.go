package restapi

import (
	"errors"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/write"
	"github.com/openkeel/keel/schemas"
)

// validateLabels checks a label set against the catalogue before anything is
// committed: a bad value, a near-miss of a known label or (in strict mode) an
// unknown label is a 400 naming every offending label and what is allowed.
func (s *Server) validateLabels(scope schemas.Scope, labels map[string]string) error {
	if err := checkLabelLimits(labels); err != nil {
		return err
	}
	cat, err := s.siteCatalogue()
	if err != nil {
		return err
	}
	violations, _ := cat.ValidateLabels(scope, labels, s.cfg.LabelOptions)
	if len(violations) == 0 {
		return nil
	}
	msgs := make([]string, len(violations))
	for i, v := range violations {
		msgs[i] = v.String()
	}
	return apierr.BadRequest("Invalid labels: %s", strings.Join(msgs, "; "))
}

// siteCatalogue is the label schema requests are validated with:
// Config.Catalogue, else the embedded schema narrowed by the site.cue of
// the repository's HEAD (schemas.SiteCatalogue, cached by the file's hash).
// The commit then renders with the site file of the tree it is made on,
// which is HEAD's unless site.cue changed in between. A site.cue that does
// not load refuses the write (siteFileError); reads never look at it.
func (s *Server) siteCatalogue() (*schemas.Catalogue, error) {
	if s.cfg.Catalogue != nil {
		return s.cfg.Catalogue, nil
	}
	if s.cfg.Store == nil {
		return schemas.Default(), nil
	}
	sn, err := s.cfg.Store.SnapshotHead()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return schemas.Default(), nil // an empty repository has no site file
	}
	if err != nil {
		return nil, err
	}
	cat, err := schemas.SiteCatalogue(sn)
	if err != nil {
		return nil, write.SiteFileError(err)
	}
	return cat, nil
}

// catalogue is siteCatalogue for callers that only need defaults (the
// root-volume check's boot_volume_size): a broken site file falls back to
// the embedded schema, since the write is refused by the label validation
// or the compilation anyway.
func (s *Server) catalogue() *schemas.Catalogue {
	cat, err := s.siteCatalogue()
	if err != nil {
		return schemas.Default()
	}
	return cat
}

// pinKubeTag writes the effective kube_tag default (the site's, else the
// catalogue's) into labels that lack kube_tag, so that the cluster's
// intent in Git names its concrete Kubernetes version: a later keel release
// or site.cue with another default then never moves it (only an upgrade
// does). labels must be the caller's own map.
func (s *Server) pinKubeTag(labels map[string]string) error {
	if _, ok := labels[schemas.LabelKubeTag]; ok {
		return nil
	}
	cat, err := s.siteCatalogue()
	if err != nil {
		return err
	}
	labels[schemas.LabelKubeTag] = cat.String(nil, schemas.LabelKubeTag)
	return nil
}
