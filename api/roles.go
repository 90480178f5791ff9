package api

import "slices"

// Role is a rank in the hierarchy admin ⊃ supervisor ⊃ quality ⊃ operator:
// a higher role may do everything a lower one may.
type Role int

// The roles, lowest first. RoleNone is a signed-in user with no known role:
// it may read its own profile and notifications and nothing else.
const (
	RoleNone Role = iota
	RoleOperator
	RoleQuality
	RoleSupervisor
	RoleAdmin
)

var roleNames = []string{"none", "operator", "quality", "supervisor", "admin"}

// String returns the role's name as tokens carry it.
func (r Role) String() string { return roleNames[r] }

// highestRole is the highest known role among a token's role names.
func highestRole(names []string) Role {
	best := RoleNone
	for _, n := range names {
		if i := slices.Index(roleNames, n); i > int(best) {
			best = Role(i)
		}
	}
	return best
}
