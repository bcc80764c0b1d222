package restapi

import (
	"crypto/rand"
	"fmt"
	"math/big"
)

var greek = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
	"lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"}

// generateName makes a name as Magnum's name generator does:
// <greek letter>-<1..24>-<suffix>.
func generateName(suffix string) string {
	k, _ := rand.Int(rand.Reader, big.NewInt(int64(len(greek))))
	n, _ := rand.Int(rand.Reader, big.NewInt(24))
	return fmt.Sprintf("%s-%d-%s", greek[k.Int64()], n.Int64()+1, suffix)
}
