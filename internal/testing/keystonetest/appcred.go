package keystonetest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// ApplicationCredential is an application credential the fake holds.
type ApplicationCredential struct {
	ID, Name, Description string
	Secret                string
	UserID, ProjectID     string
	Unrestricted          bool
	Roles                 []string
}

// ApplicationCredentials returns (copies of) the application credentials
// of a user ID.
func (k *Keystone) ApplicationCredentials(userID string) []ApplicationCredential {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []ApplicationCredential
	for _, ac := range k.appCreds {
		if ac.UserID == userID {
			c := *ac
			c.Roles = append([]string(nil), ac.Roles...)
			out = append(out, c)
		}
	}
	return out
}

// serveAppCreds answers /v3/users/{user}/application_credentials[/{id}]
// as Keystone does with its default policies: a user manages their own
// credentials (created with the token's project and roles); an admin may
// also read and delete other users'. ok is false for other paths.
func (k *Keystone) serveAppCreds(w http.ResponseWriter, r *http.Request, path string) bool {
	rest, found := strings.CutPrefix(path, "/v3/users/")
	if !found {
		return false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[1] != "application_credentials" {
		return false
	}
	userID := parts[0]
	caller := k.validLocked(r.Header.Get("X-Auth-Token"))
	if caller == nil {
		keystoneError(w, http.StatusUnauthorized, "Unauthorized", "The request you have made requires authentication.")
		return true
	}
	owner := caller.user.ID == userID
	admin := slices.Contains(expand(caller.user.Roles), "admin")
	forbidden := func(action string) {
		keystoneError(w, http.StatusForbidden, "Forbidden", "You are not authorized to perform the requested action: identity:"+action+".")
	}
	if len(parts) == 2 {
		if r.Method != http.MethodPost {
			keystoneError(w, http.StatusMethodNotAllowed, "Method Not Allowed", "The method is not allowed for the requested URL.")
			return true
		}
		if !owner {
			forbidden("create_application_credential")
			return true
		}
		var req struct {
			AC struct {
				Name         string `json:"name"`
				Description  string `json:"description"`
				Unrestricted bool   `json:"unrestricted"`
				Roles        []struct {
					Name string `json:"name"`
				} `json:"roles"`
			} `json:"application_credential"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.AC.Name == "" {
			keystoneError(w, http.StatusBadRequest, "Bad Request", "Invalid input for field 'name'.")
			return true
		}
		for _, ac := range k.appCreds {
			if ac.UserID == userID && ac.Name == req.AC.Name {
				keystoneError(w, http.StatusConflict, "Conflict", "Duplicate entry found with name "+req.AC.Name+".")
				return true
			}
		}
		roles := expand(caller.user.Roles)
		if len(req.AC.Roles) > 0 {
			roles = nil
			for _, r := range req.AC.Roles {
				roles = append(roles, r.Name)
			}
		}
		ac := &ApplicationCredential{ID: randomHex(16), Secret: randomHex(24), Name: req.AC.Name,
			Description: req.AC.Description, UserID: userID, ProjectID: caller.user.ProjectID,
			Unrestricted: req.AC.Unrestricted, Roles: roles}
		if k.appCreds == nil {
			k.appCreds = map[string]*ApplicationCredential{}
		}
		k.appCreds[ac.ID] = ac
		writeJSON(w, http.StatusCreated, map[string]any{"application_credential": appCredBody(ac, true)})
		return true
	}
	id := parts[2]
	ac, exists := k.appCreds[id]
	if exists && ac.UserID != userID {
		exists = false
	}
	switch r.Method {
	case http.MethodGet:
		if !owner && !admin {
			forbidden("get_application_credential")
			return true
		}
	case http.MethodDelete:
		if !owner && !admin {
			forbidden("delete_application_credential")
			return true
		}
	default:
		keystoneError(w, http.StatusMethodNotAllowed, "Method Not Allowed", "The method is not allowed for the requested URL.")
		return true
	}
	if !exists {
		keystoneError(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Could not find Application Credential: %s.", id))
		return true
	}
	if r.Method == http.MethodDelete {
		delete(k.appCreds, id)
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	writeJSON(w, http.StatusOK, map[string]any{"application_credential": appCredBody(ac, false)})
	return true
}

func appCredBody(ac *ApplicationCredential, withSecret bool) map[string]any {
	roles := []any{}
	for _, r := range ac.Roles {
		roles = append(roles, map[string]any{"id": "role-" + r, "name": r, "domain_id": nil})
	}
	out := map[string]any{
		"id": ac.ID, "name": ac.Name, "description": ac.Description, "user_id": ac.UserID,
		"project_id": ac.ProjectID, "unrestricted": ac.Unrestricted, "expires_at": nil, "roles": roles,
		"links": map[string]any{"self": "/v3/users/" + ac.UserID + "/application_credentials/" + ac.ID},
	}
	if withSecret { // Keystone shows the secret once, on creation
		out["secret"] = ac.Secret
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
