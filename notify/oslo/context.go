package oslo

// requestContext is what Magnum's RequestContext.to_dict() gives (with
// oslo.context's keys), which the driver packs as _context_* fields. keel
// knows the caller's user, project and request from the commit; the
// token is never sent (oslo.messaging redacts it too, since 2023). A
// status the observer saw settle carries Magnum's periodic task's admin
// context: no user, is_admin and all_tenants set.
func requestContext(e *Event) map[string]any {
	user, project, domain := nullable(e.Initiator.UserID), nullable(e.Initiator.ProjectID), nullable(e.Initiator.DomainID)
	if e.System {
		user, project, domain = nil, nil, nil
	}
	return map[string]any{
		"user": user, "user_id": user, "project": project, "project_id": project,
		"domain": domain, "domain_id": domain, "user_identity": identity(user, project, domain),
		"request_id": requestID(e), "global_request_id": nil, "is_admin": e.System,
		"is_admin_project": true, "all_tenants": e.System, "read_only": false, "show_deleted": false,
		"roles": []string{}, "auth_token": nil, "auth_token_info": nil, "auth_url": nil,
		"user_name": nil, "project_name": nil, "domain_name": nil, "user_domain": nil,
		"user_domain_id": nil, "user_domain_name": nil, "project_domain": nil,
		"password": nil, "resource_uuid": nil, "system_scope": nil, "trust_id": nil,
	}
}

// requestID: Magnum's context always has one (req-<uuid>); keel's is the
// API request's, or one derived from the message for a system event.
func requestID(e *Event) string {
	if e.RequestID != "" {
		return e.RequestID
	}
	return "req-" + derivedID(e, "request")
}

// identity is oslo.context's user_identity: "user project domain
// user_domain project_domain", "-" for what is unknown.
func identity(parts ...any) string {
	s := ""
	for _, p := range parts {
		v, _ := p.(string)
		if v == "" {
			v = "-"
		}
		s += v + " "
	}
	return s + "- -"
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
