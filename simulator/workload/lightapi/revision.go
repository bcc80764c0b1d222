package lightapi

// Revision is the store's latest resourceVersion: it changes with every
// write, so a reader that saw it unchanged knows nothing changed (the
// simulated kubelets skip a cluster where nothing did).
func (s *Store) Revision() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}
