// Package role is the hierarchy of roles shared by the API (authorization)
// and the workers (who may see an event): admin ⊃ supervisor ⊃ quality ⊃
// operator.
package role

import "slices"

// Role is a rank: a higher role may do everything a lower one may.
type Role int

// The roles, lowest first. None is a signed-in user with no known role: it
// may read its own profile and notifications and nothing else.
const (
	None Role = iota
	Operator
	Quality
	Supervisor
	Admin
)

var names = []string{"none", "operator", "quality", "supervisor", "admin"}

// String returns the role's name as tokens carry it.
func (r Role) String() string {
	if r < None || r > Admin {
		return "unknown"
	}
	return names[r]
}

// Highest is the highest known role among a token's role names.
func Highest(roles []string) Role {
	best := None
	for _, n := range roles {
		if i := slices.Index(names, n); i > int(best) {
			best = Role(i)
		}
	}
	return best
}
